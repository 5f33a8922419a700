// Network faults between containers of a compose project: iptables rules inside a container's own network
// namespace, entered from the host with nsenter (the tests run as root on the machine of the private
// dockerd that scripts/docker-setup.sh starts). The host's iptables binary does the work, so the images
// need neither iptables nor NET_ADMIN, and only the project's own network is touched. Rules go into one
// chain (JEPSEN) hooked into INPUT and OUTPUT; healing flushes it. DROP, not REJECT: a partition is silence.
// Addresses and the container's pid are looked up when a cut is planned; applying it is one nsenter call.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CHAIN = 'JEPSEN';
const FLUSH = `iptables -w -F ${CHAIN} 2>/dev/null || true`;

async function docker(args: string[]): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: 30_000 });
  return stdout.trim();
}

/** Runs shell commands inside the network namespace of process `pid` (iptables from the host). */
async function inNetns(pid: string, script: string): Promise<void> {
  await run('nsenter', ['-t', pid, '-n', 'sh', '-ec', script], { timeout: 30_000 });
}

export interface PlannedCut {
  service: string;
  addresses: string[];
  apply(): Promise<void>;
  /** Removes the rules again (the pid found when planning; looked up again if the container restarted). */
  heal(): Promise<void>;
}

export class ContainerNetwork {
  readonly project: string;
  /** Services with rules in place, to heal them all at the end. */
  readonly #touched = new Set<string>();

  constructor(project: string) {
    this.project = project;
  }

  async containerId(service: string): Promise<string> {
    const id = await docker(['ps', '-a', '-q', '--filter', `label=com.docker.compose.project=${this.project}`, '--filter', `label=com.docker.compose.service=${service}`]);
    if (!id) throw new Error(`no container for ${service} in ${this.project}`);
    return id.split('\n')[0]!;
  }

  async running(service: string): Promise<boolean> {
    return (await docker(['inspect', '-f', '{{.State.Running}}', await this.containerId(service)])) === 'true';
  }

  /** The container's addresses on its networks (read each time: a restarted container may get another). */
  async addresses(service: string): Promise<string[]> {
    const out = await docker(['inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}', await this.containerId(service)]);
    return out.split(/\s+/).filter((a) => a !== '');
  }

  async #pid(service: string): Promise<string> {
    const pid = await docker(['inspect', '-f', '{{.State.Pid}}', await this.containerId(service)]);
    if (!/^[1-9]\d*$/.test(pid)) throw new Error(`${service} has no process (pid ${pid})`);
    return pid;
  }

  /** Plans dropping every packet between `service` and each of `peers` (both directions), until heal(service). */
  async planCut(service: string, peers: string[]): Promise<PlannedCut> {
    const addresses = (await Promise.all(peers.map((p) => this.addresses(p)))).flat();
    const pid = await this.#pid(service);
    const ipt = 'iptables -w';
    const script = [
      `${ipt} -N ${CHAIN} 2>/dev/null || true`,
      ...['INPUT', 'OUTPUT'].map((hook) => `${ipt} -C ${hook} -j ${CHAIN} 2>/dev/null || ${ipt} -I ${hook} -j ${CHAIN}`),
      ...addresses.flatMap((a) => [`${ipt} -A ${CHAIN} -s ${a} -j DROP`, `${ipt} -A ${CHAIN} -d ${a} -j DROP`]),
    ].join('\n');
    return {
      service,
      addresses,
      apply: async () => {
        this.#touched.add(service);
        await inNetns(pid, script);
      },
      heal: async () => {
        const flushed = await inNetns(pid, FLUSH).then(
          () => true,
          () => false,
        );
        if (flushed) this.#touched.delete(service);
        else await this.heal(service);
      },
    };
  }

  async heal(service: string): Promise<void> {
    await inNetns(await this.#pid(service), FLUSH);
    this.#touched.delete(service);
  }

  /** Heals every service cut so far (teardown); errors of containers that are gone are ignored. */
  async healAll(): Promise<void> {
    await Promise.allSettled([...this.#touched].map((s) => this.heal(s)));
  }
}
