import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real small filesystem (tmpfs) a test fills to make writes fail with ENOSPC. */
export interface TinyDisk {
  dir: string;
  /** Fills every free byte (a file of its own). */
  fill(): void;
  /** Frees what {@link fill} took. */
  free(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `size` under a new temp dir; the reason instead where mounting is not permitted (not root, no CAP_SYS_ADMIN). */
export function mountTinyDisk(size = '2m'): TinyDisk | string {
  const dir = mkdtempSync(join(tmpdir(), 'turns-tiny-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here (${(mounted.stderr || mounted.error?.message || 'mount failed').trim()})`;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      // 64 KiB writes, then single bytes: a write that fits in a page a file already has would still succeed.
      for (const size of [64 * 1024, 1]) {
        const fd = openSync(filler, 'a');
        try {
          for (let i = 0; i < 1 << 16; i += 1) writeSync(fd, Buffer.alloc(size));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        } finally {
          closeSync(fd);
        }
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Why a tiny disk cannot be mounted here, or `undefined` when it can: tried
 * once (mounted and unmounted at once), so a suite decides whether to skip
 * without holding a mount that a filtered run would never let go.
 */
export function tinyDiskUnavailable(): string | undefined {
  const probe = mountTinyDisk('64k');
  if (typeof probe === 'string') return probe;
  probe.unmount();
  return undefined;
}
