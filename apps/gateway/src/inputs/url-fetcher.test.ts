import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageServer, eventually } from './testing/image-server';
import { downloadUrl, DownloadError, isForbiddenAddress, UrlDownloader } from './url-fetcher';

const LIMITS = { timeoutMs: 1000, maxBytes: 1024 * 1024, maxRedirects: 3, allowPrivate: true, concurrencyPerAccount: 4 };

/** Runs a download that must fail; returns its message and how long it took. */
async function failure(download: Promise<unknown>): Promise<{ message: string; ms: number }> {
  const started = Date.now();
  try {
    await download;
  } catch (error) {
    expect(error).toBeInstanceOf(DownloadError);
    return { message: (error as Error).message, ms: Date.now() - started };
  }
  throw new Error('the download succeeded');
}

describe('addresses a download may reach', () => {
  it.each([
    // Loopback, private, link-local (cloud metadata), carrier-grade NAT, multicast, reserved, broadcast.
    '0.0.0.0', '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '224.0.0.1', '240.0.0.1', '255.255.255.255', '192.0.0.8', '198.18.0.1',
    // Documentation and relay ranges the hand-written list missed.
    '192.0.2.1', '198.51.100.7', '203.0.113.200', '192.88.99.1',
    // IPv6: unspecified, loopback, unique local, link local, multicast, documentation, site local.
    '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1', '2001:db8::1', 'fec0::1',
    // IPv4 carried in IPv6 is judged by the IPv4 address: mapped, SIIT, NAT64, 6to4.
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:0:10.0.0.1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '2002:c0a8:101::1',
    // Forms that are deprecated or local by definition are refused whatever they carry.
    '::127.0.0.1', '::8.8.8.8', '64:ff9b:1::8.8.8.8', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '100::1', '5f00::1',
    // Not an address at all.
    'localhost', '', '1.2.3', 'fe80::1%eth0x',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '192.0.1.1', '198.50.1.1', '203.0.114.1', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:0808:0808::1'])(
    'accepts the public address %s',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );
});

describe('a URL download', () => {
  let server: ImageServer;
  beforeAll(async () => {
    server = await new ImageServer(Buffer.from('image bytes'), 200).start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('ends at its deadline while the server still trickles bytes, and closes the socket', async () => {
    const { message, ms } = await failure(downloadUrl(`${server.base}/trickle?tag=deadline`, LIMITS));
    expect(message).toBe('Failed to download file.');
    // A 1 s limit; generous for a loaded machine, but far from the minutes an idle timeout allowed.
    expect(ms).toBeLessThan(5000);
    expect(await eventually(() => server.requests('/trickle', 'deadline')[0]?.closedAt !== undefined, 5000)).toBe(true);
  });

  it('ends at its deadline when the server never answers', async () => {
    const { message, ms } = await failure(downloadUrl(`${server.base}/silent?tag=silent`, LIMITS));
    expect(message).toBe('Failed to download file.');
    expect(ms).toBeLessThan(5000);
    expect(await eventually(() => server.requests('/silent', 'silent')[0]?.closedAt !== undefined, 5000)).toBe(true);
  });

  it('stops and closes the socket as soon as its signal aborts (the caller went away)', async () => {
    const controller = new AbortController();
    const download = failure(downloadUrl(`${server.base}/trickle?tag=abort`, { ...LIMITS, timeoutMs: 60_000 }, { signal: controller.signal }));
    expect(await eventually(() => server.requests('/trickle', 'abort').length === 1)).toBe(true);
    const aborted = Date.now();
    controller.abort();
    const { message } = await download;
    expect(message).toBe('Failed to download file.');
    expect(await eventually(() => server.requests('/trickle', 'abort')[0].closedAt !== undefined, 5000)).toBe(true);
    expect(server.requests('/trickle', 'abort')[0].closedAt! - aborted).toBeLessThan(5000);
  });

  it('does not keep the connection open once the image is read', async () => {
    expect((await downloadUrl(`${server.base}/img?tag=done`, LIMITS)).toString()).toBe('image bytes');
    // A pooled keep-alive socket would stay open for seconds (5 s in Node's global agent), to a server of the caller's choosing.
    expect(await eventually(() => server.requests('/img', 'done')[0].closedAt !== undefined, 2500)).toBe(true);
  });

  it('gives one message for every refused or unreachable URL, so that answers do not map the network', async () => {
    const refused = { ...LIMITS, allowPrivate: false };
    const messages = [
      (await failure(downloadUrl(`${server.base}/missing.png`, LIMITS))).message,
      (await failure(downloadUrl('http://127.0.0.1:1/closed-port.png', LIMITS))).message,
      (await failure(downloadUrl(`${server.base}/img`, refused))).message,
      (await failure(downloadUrl(`${server.base}/silent`, LIMITS))).message,
      (await failure(downloadUrl('http://images.example.test/a.png', LIMITS, { lookup: async () => { throw new Error('ENOTFOUND'); } }))).message,
      (await failure(downloadUrl(`${server.base}/redirect?to=${encodeURIComponent('ftp://files.example.com/a.png')}`, LIMITS))).message,
      (await failure(downloadUrl(`${server.base}/redirect?to=${encodeURIComponent(`${server.base}/redirect`)}`, { ...LIMITS, maxRedirects: 0 }))).message,
    ];
    expect(new Set(messages)).toEqual(new Set(['Failed to download file.']));
  });

  it('keeps precise messages for what reveals nothing about the network', async () => {
    expect((await failure(downloadUrl('not a url', LIMITS))).message).toBe('Failed to download file: this is not a valid URL.');
    expect((await failure(downloadUrl('ftp://files.example.com/a.png', LIMITS))).message).toBe('Failed to download file: only http and https URLs are accepted.');
    expect((await failure(downloadUrl('http://user:secret@images.example.com/a.png', LIMITS))).message).toBe('Failed to download file: URLs with credentials are not accepted.');
    expect((await failure(downloadUrl(`${server.base}/img`, { ...LIMITS, maxBytes: 4 }))).message).toBe('Failed to download file: it is larger than 4 bytes.');
  });

  it('checks the address of every redirect hop, and connects to the address it checked', async () => {
    const port = new URL(server.base).port;
    // 127.0.0.1 stands for a public host; 127.0.0.2 for a private one that a redirect points to.
    const allows = (address: string) => address === '127.0.0.1';
    const lookups: string[] = [];
    // A rebinding resolver: the first answer is the allowed address, any later one would be the private address.
    const lookup = async (host: string) => {
      lookups.push(host);
      return [lookups.length === 1 ? '127.0.0.1' : '127.0.0.2'];
    };
    const hop = `http://internal.example.test:${port}/img?tag=hop2`;
    const { message } = await failure(downloadUrl(`http://images.example.test:${port}/redirect?tag=hop1&to=${encodeURIComponent(hop)}`, LIMITS, { lookup, allows }));
    expect(message).toBe('Failed to download file.');
    expect(lookups).toEqual(['images.example.test', 'internal.example.test']);
    expect(server.requests('/redirect', 'hop1')).toHaveLength(1);
    expect(server.requests('/img', 'hop2')).toHaveLength(0);

    lookups.length = 0;
    expect((await downloadUrl(`http://images.example.test:${port}/img?tag=rebind`, LIMITS, { lookup, allows })).toString()).toBe('image bytes');
    // Resolved once; had the connection resolved the name again it would have been refused or gone to 127.0.0.2.
    expect(lookups).toEqual(['images.example.test']);
    expect(server.requests('/img', 'rebind')).toHaveLength(1);
  });
});

describe('downloads of one account', () => {
  let server: ImageServer;
  beforeAll(async () => {
    server = await new ImageServer(Buffer.from('held image')).start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('run at most the configured number at a time; other accounts are not held up', async () => {
    const downloader = new UrlDownloader({ ...LIMITS, timeoutMs: 30_000, concurrencyPerAccount: 2 });
    const acme = [1, 2, 3, 4].map((n) => downloader.download(`${server.base}/hold?tag=acme&n=${n}`, { owner: 'acme' }));
    expect(await eventually(() => server.openNow('acme') === 2)).toBe(true);
    const beta = downloader.download(`${server.base}/hold?tag=beta`, { owner: 'beta' });
    expect(await eventually(() => server.openNow('beta') === 1)).toBe(true);
    // Give the waiting downloads every chance to start wrongly before the held ones are answered.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests('/hold', 'acme').map((r) => r.n).sort()).toEqual(['1', '2']);
    const drained = await eventually(() => {
      server.release();
      return server.requests('/hold', 'acme').length === 4 && server.openNow('acme') === 0;
    });
    expect(drained).toBe(true);
    expect((await Promise.all([...acme, beta])).map(String)).toEqual(Array(5).fill('held image'));
    expect(server.peakOpen('acme')).toBe(2);
  });

  it('wait in arrival order', async () => {
    const downloader = new UrlDownloader({ ...LIMITS, timeoutMs: 30_000, concurrencyPerAccount: 1 });
    const downloads = [1, 2, 3, 4].map((n) => downloader.download(`${server.base}/hold?tag=fifo&n=${n}`, { owner: 'acme' }));
    // One place: each download connects only after the one before it was answered, so the server sees their order.
    for (let started = 1; started <= 4; started++) {
      expect(await eventually(() => server.openNow('fifo') === 1 && server.requests('/hold', 'fifo').length === started)).toBe(true);
      server.release();
    }
    await Promise.all(downloads);
    expect(server.requests('/hold', 'fifo').map((r) => r.n)).toEqual(['1', '2', '3', '4']);
  });

  it('fail clearly when no place frees up before their deadline, without connecting', async () => {
    const downloader = new UrlDownloader({ ...LIMITS, timeoutMs: 3000, concurrencyPerAccount: 1 });
    const first = failure(downloader.download(`${server.base}/silent?tag=busy`, { owner: 'acme' }));
    expect(await eventually(() => server.openNow('busy') === 1)).toBe(true);
    // The second call's own deadline ends well before the first download's limit frees the place.
    const second = await failure(downloader.download(`${server.base}/img?tag=waited`, { owner: 'acme', deadline: Date.now() + 1000 }));
    expect(second.message).toBe('Failed to download file: this account already had 1 download running until the time limit; retry later.');
    expect(second.ms).toBeLessThan(5000);
    expect(server.requests('/img', 'waited')).toHaveLength(0);
    expect((await first).message).toBe('Failed to download file.');
  });

  it('end by the caller\'s deadline when it is shorter than the configured limit', async () => {
    const downloader = new UrlDownloader({ ...LIMITS, timeoutMs: 60_000 });
    const { ms } = await failure(downloader.download(`${server.base}/trickle?tag=caller`, { owner: 'acme', deadline: Date.now() + 1000 }));
    expect(ms).toBeLessThan(5000);
    expect(await eventually(() => server.requests('/trickle', 'caller')[0]?.closedAt !== undefined, 5000)).toBe(true);
  });
});
