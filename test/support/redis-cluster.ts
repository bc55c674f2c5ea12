import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { answersPing, freePort } from './redis-server.js';

const run = promisify(execFile);

/**
 * A Redis Cluster of the test's own: three primaries (no replicas) on free ports, their nodes.conf files in a
 * temporary directory, nothing persisted. A node can be killed (as a crash) and started again with the same
 * port and nodes.conf, which rejoins it with the slots it had.
 */
export class RedisClusterProcesses {
  private readonly children = new Map<number, ChildProcess>();

  private constructor(
    readonly ports: readonly number[],
    private readonly dir: string,
  ) {}

  /** Starts the nodes, joins them into one cluster and waits until every node reports `cluster_state:ok`. */
  static async start(size = 3): Promise<RedisClusterProcesses> {
    const ports: number[] = [];
    while (ports.length < size) {
      const port = await freePort();
      // The cluster bus listens on port + 10000: both must be free.
      if (port < 55_000 && !ports.includes(port) && (await canListen(port + 10_000))) ports.push(port);
    }
    const cluster = new RedisClusterProcesses(ports, await mkdtemp(join(tmpdir(), 'mcp-redis-cluster-')));
    try {
      for (const port of ports) await cluster.startNode(port);
      await run('redis-cli', [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ]);
      await cluster.untilOk();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  get nodes(): Array<{ host: string; port: number }> {
    return this.ports.map((port) => ({ host: '127.0.0.1', port }));
  }

  /** `redis-cli` against one node, its answer trimmed. */
  async cli(port: number, ...args: string[]): Promise<string> {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args]);
    return stdout.trim();
  }

  /** The hash slot of a key. */
  async slotOf(key: string): Promise<number> {
    return Number(await this.cli(this.ports[0], 'cluster', 'keyslot', key));
  }

  /** The port of the node that serves a key's hash slot. */
  async nodeOf(key: string): Promise<number> {
    const slot = await this.slotOf(key);
    for (const line of (await this.cli(this.ports[0], 'cluster', 'nodes')).split('\n')) {
      const [, address, , , , , , , ...ranges] = line.split(' ');
      const served = ranges.some((range) => {
        const [from, to = from] = range.split('-').map(Number);
        return slot >= from && slot <= to;
      });
      if (served) return Number(/:(\d+)@/.exec(address)![1]);
    }
    throw new Error(`no node serves slot ${slot}`);
  }

  /** Kills one node at once, as a crash would, and waits until it is gone. */
  async kill(port: number): Promise<void> {
    const child = this.children.get(port);
    this.children.delete(port);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Starts a killed node again, with its port and nodes.conf, and waits until the cluster is whole. */
  async restart(port: number): Promise<void> {
    await this.startNode(port);
    await this.untilOk();
  }

  /** Kills every node and removes the directory. */
  async stop(): Promise<void> {
    for (const port of this.ports) await this.kill(port);
    await rm(this.dir, { recursive: true, force: true });
  }

  private async startNode(port: number): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(this.dir, `nodes-${port}.conf`),
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--dir',
        this.dir,
      ],
      { stdio: 'ignore' },
    );
    this.children.set(port, child);
    const deadline = Date.now() + 10_000;
    while (!(await answersPing(port))) {
      if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private async untilOk(): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const states = await Promise.all(this.ports.map((port) => this.cli(port, 'cluster', 'info').catch(() => '')));
      if (states.every((info) => info.includes('cluster_state:ok'))) return;
      if (Date.now() > deadline) throw new Error(`the cluster on ${this.ports.join(', ')} did not reach state ok`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
