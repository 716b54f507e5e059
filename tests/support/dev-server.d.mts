export declare const freePort: () => Promise<number>;
export interface DevServer {
  url: string;
  port: number;
  /** cli/dev.mjs's process id (it leads the process group that stop() ends). */
  pid: number;
  /** The server's `--persist-to` folder. */
  stateFolder: string;
  /** Whether cli/dev.mjs has exited. */
  exited(): boolean;
  startupMs: number;
  /** Everything the dev server printed so far. */
  log(): string;
  /** Stops the process group and removes its state folder. */
  stop(): Promise<void>;
}
export declare const startDev: (options?: {
  vars?: Record<string, string>;
  args?: string[];
  stateDir?: string;
  timeoutMs?: number;
  ports?: [number, number];
}) => Promise<DevServer>;
