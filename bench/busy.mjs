// CPU-bound neighbours for the benchmarks that measure "beside two busy processes" (typing,
// page-load): spawned by the benchmark, killed by pid, never outliving it. Each one also stops by
// itself after timeoutSeconds, or as soon as its parent (the benchmark) is gone (it is
// re-parented), whatever way the benchmark ends.
import { spawn } from 'node:child_process';

/** { start(count): pids, stop(pids = all still running) } for neighbours of this process. */
export function busyNeighbours(timeoutSeconds) {
  const children = new Set();
  const code = `const parent = ${process.pid}, end = Date.now() + ${Math.round(timeoutSeconds * 1000)}; let i = 0, x = 0;
for (;;) { x = (x * 1103515245 + 12345) | 0; if (++i % 20000000 === 0 && (Date.now() > end || process.ppid !== parent)) process.exit(0); }`;
  return {
    start(count) {
      const pids = [];
      for (let i = 0; i < count; i++) {
        const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
        children.add(child.pid);
        child.on('exit', () => children.delete(child.pid));
        pids.push(child.pid);
      }
      return pids;
    },
    stop(pids = [...children]) {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
        children.delete(pid);
      }
    },
  };
}
