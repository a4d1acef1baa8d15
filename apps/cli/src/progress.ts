/** Width of the bar in characters. */
const BAR_WIDTH = 30;
/** A redrawn bar is refreshed at most this often; plain (non-terminal) output gets a line per batch instead. */
const REDRAW_MS = 100;

export interface ProgressCounts {
  done: number;
  total: number;
  added: number;
  skipped: number;
  failed: number;
}

export function progressLine(c: ProgressCounts): string {
  const share = c.total === 0 ? 1 : c.done / c.total;
  const filled = Math.round(share * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${c.done}/${c.total}  added ${c.added}  skipped ${c.skipped}  failed ${c.failed}`;
}

/** A progress bar on a stream (stderr): redrawn in place on a terminal, one line per update otherwise. */
export class ProgressBar {
  private lastDraw = 0;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {}

  update(counts: ProgressCounts): void {
    if (this.out.isTTY) {
      if (Date.now() - this.lastDraw < REDRAW_MS && counts.done < counts.total) return;
      this.lastDraw = Date.now();
      this.out.write(`\r${progressLine(counts)}`);
    } else {
      this.out.write(`${progressLine(counts)}\n`);
    }
  }

  /** Writes a message above the bar (a failure), without breaking it. */
  note(message: string): void {
    this.out.write(this.out.isTTY ? `\r\x1b[K${message}\n` : `${message}\n`);
  }

  finish(): void {
    if (this.out.isTTY) this.out.write('\n');
  }
}
