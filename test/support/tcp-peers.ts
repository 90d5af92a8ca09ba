import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The remote ports of every TCP connection a process holds (Linux: its socket descriptors,
 * looked up in its network namespace's tables), so a test can say whom it talks to.
 */
export function tcpPeerPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // Closed meanwhile.
    }
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const lines = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // Fields: sl, local address, remote address (hex ip:hex port), state, ..., inode (10th).
      if (inodes.has(fields[9])) ports.push(parseInt(fields[2].split(':')[1], 16));
    }
  }
  return ports;
}
