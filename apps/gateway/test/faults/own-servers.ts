import { ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '../processes';

/**
 * Redis and Postgres servers of the fault suites' own, on free ports: the suites kill and restart them, which the
 * machine's shared servers (used by every other suite) must never suffer.
 */

const run = promisify(execFile);

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** A Redis without persistence (as the CI's): killing it loses every queued job and admission slot. */
export class OwnRedis {
  private child: ChildProcess | null = null;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitFor(`redis-server on port ${this.port}`, () => accepts(this.port), 20_000, 50);
  }

  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

/** Postgres refuses to run as root: as root, the cluster belongs to the `postgres` OS user. */
const asPostgres = (command: string, args: string[]) =>
  process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);

async function postgresBin(name: string): Promise<string> {
  const versions = (await readdir('/usr/lib/postgresql').catch(() => [] as string[])).sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join('/usr/lib/postgresql', versions[0], 'bin', name) : name;
}

/** A throwaway Postgres cluster (trust auth, 127.0.0.1 only) in a temporary folder. */
export class OwnPostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async create(port: number): Promise<OwnPostgres> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-pg-'));
    await chmod(dir, 0o777);
    const pg = new OwnPostgres(port, dir);
    await asPostgres(await postgresBin('initdb'), ['-D', path.join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    return pg;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    await asPostgres(await postgresBin('pg_ctl'), ['-D', path.join(this.dir, 'data'), '-o', options, '-l', path.join(this.dir, 'log'), '-w', 'start']);
  }

  /** Stops without a shutdown checkpoint, as a crash would: open connections are cut, recovery runs on the next start. */
  async crash(): Promise<void> {
    await asPostgres(await postgresBin('pg_ctl'), ['-D', path.join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  }

  async destroy(): Promise<void> {
    await this.crash();
    await rm(this.dir, { recursive: true, force: true });
  }
}
