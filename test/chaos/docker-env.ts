// Chaos-test support: the Docker engine scripts/docker-setup.sh started, found through DOCKER_HOST or the
// docker.env file it writes. A missing engine is an error (CI must fail, never skip these tests).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DOCKER_DIR = process.env.GREGOR_DOCKER_DIR ?? '/var/cache/gregor-docker';

/** Sets DOCKER_HOST and testcontainers' settings for this machine; call before importing testcontainers. */
export function useDockerEngine(): string {
  if (!process.env.DOCKER_HOST) {
    const file = join(DOCKER_DIR, 'docker.env');
    if (!existsSync(file)) throw new Error(`no Docker engine: DOCKER_HOST is unset and ${file} is missing (run: bash scripts/docker-setup.sh)`);
    const line = readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith('DOCKER_HOST='));
    if (!line) throw new Error(`${file} has no DOCKER_HOST line (run: bash scripts/docker-setup.sh)`);
    process.env.DOCKER_HOST = line.slice('DOCKER_HOST='.length).trim();
  }
  const probe = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0) {
    throw new Error(`the Docker engine at ${process.env.DOCKER_HOST} does not answer (run: bash scripts/docker-setup.sh): ${(probe.stderr ?? String(probe.error)).trim()}`);
  }
  // The ryuk image cannot be pulled here; this host looks like a container to testcontainers.
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
  return process.env.DOCKER_HOST;
}
