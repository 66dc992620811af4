// Types of the sagemaker-emulator package (hand-written; the code is plain ESM in index.js).

/** Where the handle's AWS clients and admin calls go, and as whom. */
export interface EmulatorIdentity {
  /** Region the AWS clients sign for (default us-west-2). */
  region?: string;
  /** 12-digit account; sent as the access key id, which the emulator takes as the account (default 123456789012). */
  accountId?: string;
}

export interface StartOptions extends EmulatorIdentity {
  /** Path of the binary; else $SAGEMAKER_EMULATOR_BINARY, else sagemaker-emulator on PATH. */
  binary?: string;
  /** Server arguments after `--port 0 --db :memory:`, e.g. ['--clock-start', '2027-01-15T00:00:00Z', '--frozen-clock']. */
  args?: string[];
  /** Environment of the server process, on top of process.env. */
  env?: Record<string, string | undefined>;
  /** Start the server with this admin token (passed as SAGEMAKER_EMULATOR_ADMIN_TOKEN) and send it on admin calls. */
  adminToken?: string;
  /** How long the server has to print its listening line and answer /_emulator/health (default 15000). */
  timeoutMs?: number;
}

export interface ConnectOptions extends EmulatorIdentity {
  /** Sent as X-Emulator-Admin-Token on admin calls (default $SAGEMAKER_EMULATOR_ADMIN_TOKEN). */
  adminToken?: string;
  /** How long to wait for /_emulator/health to answer 200 (default 15000). */
  timeoutMs?: number;
}

/** What `new SageMakerClient(...)` and `new SageMakerRuntimeClient(...)` need to reach the emulator. */
export interface ClientConfig {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

/** The virtual clock. */
export interface Clock {
  now: Date;
  /** `now` in seconds since the epoch (fractional). */
  epoch: number;
  frozen: boolean;
}

/** A capacity pool change; members left out keep their current value. */
export interface PoolChange {
  /** Default: the handle's region. */
  region?: string;
  availabilityZone: string;
  instanceType: string;
  reservable?: number;
  onDemand?: number;
}

/** The pool as the emulator answers it (snake_case, as on the wire). */
export interface Pool {
  region: string;
  availability_zone: string;
  instance_type: string;
  reservable: number;
  on_demand: number;
  /** Plans holding instances of the pool: ISO 8601 window and count. */
  reservations: Array<{ training_plan_arn: string; start: string; end: string; count: number }>;
  /** Free reservable instances over the next year, as steps. */
  free_reservable: Array<{ from: string; free: number }>;
}

/** GET /_emulator/capacity: every pool, and every endpoint and job holding instances now. */
export interface CapacityView {
  now: string;
  pools: Pool[];
  in_use: Array<{
    arn: string;
    kind: string;
    region: string;
    instance_type: string;
    count: number;
    /** One of the two: the plan the instances come from, or on-demand. */
    training_plan_arn?: string;
    on_demand?: true;
  }>;
}

/** Query of GET /_emulator/costs. Left out, the range runs from the first plan or holding to now (or to the end of the last plan, if later). */
export interface CostsQuery {
  /** Start of the range [from, to): a Date, or an ISO 8601 string passed on as given. */
  from?: Date | string;
  /** End of the range (exclusive). */
  to?: Date | string;
  /** Only this 12-digit account. */
  account?: string;
}

/** Instances held over time, as steps: ISO 8601 times, gaps hold none. */
export interface CostUse {
  from: string;
  to: string;
  instances: number;
}

export type CostHolderKind = 'endpoint' | 'training-job' | 'processing-job' | 'cluster';

/** A training plan in the ledger. Money in US dollars rounded to the cent; instance-hours to 4 decimals. */
export interface CostPlan {
  training_plan_arn: string;
  name: string;
  account: string;
  region: string;
  availability_zone: string;
  instance_type: string;
  instance_count: number;
  start_time: string;
  end_time: string;
  status: 'Pending' | 'Scheduled' | 'Active' | 'Expired';
  /** The whole fee paid (plan and extensions). */
  upfront_fee: number;
  /** The fee for the part of the plan's window inside the range. */
  fee_in_range: number;
  reserved_instance_hours: number;
  used_instance_hours: number;
  used_by: Record<CostHolderKind, number>;
  /** used / reserved; null when nothing is reserved in the range. */
  utilization: number | null;
  on_demand_equivalent: number;
  use: CostUse[];
}

/** One resource's instances of one type from one source: a plan (`training_plan_arn`) or on demand (null). */
export interface CostHolder {
  arn: string;
  name: string;
  kind: CostHolderKind;
  account: string;
  region: string;
  instance_type: string;
  training_plan_arn: string | null;
  instance_hours: number;
  /** The on-demand price per instance-hour; null on a plan, whose fee pays for its use. */
  hourly_price: number | null;
  /** instance_hours x hourly_price on demand; null on a plan. */
  cost: number | null;
  use: CostUse[];
}

export interface CostChoice {
  instance_type: string;
  instance_count: number;
  training_plan_arn: string | null;
  cost: number;
}

/** A started job that had more than one InstancePreferences option: what it ran on beside its first choice. */
export interface CostPreferenceJob {
  arn: string;
  name: string;
  kind: CostHolderKind;
  account: string;
  region: string;
  hours: number;
  chosen: CostChoice;
  first_choice: CostChoice;
  /** chosen.cost - first_choice.cost */
  difference: number;
}

export interface CostTotal {
  plan_fees: number;
  on_demand_cost: number;
  total_cost: number;
  reserved_instance_hours: number;
  plan_used_instance_hours: number;
  on_demand_instance_hours: number;
  utilization: number | null;
  on_demand_equivalent: number;
  /** on_demand_equivalent - total_cost (negative when the plans cost more than their use would have on demand). */
  savings: number;
}

/** GET /_emulator/costs: the cost ledger over [from, to) (snake_case, as on the wire). */
export interface CostLedger {
  now: string;
  from: string;
  to: string;
  account: string | null;
  currency: 'USD';
  plans: CostPlan[];
  holders: CostHolder[];
  preference_jobs: CostPreferenceJob[];
  totals: {
    overall: CostTotal;
    by_account: Array<CostTotal & { account: string }>;
    by_region: Array<CostTotal & { region: string }>;
    by_instance_type: Array<CostTotal & { instance_type: string }>;
  };
}

export interface EmulatorHandle extends AsyncDisposable {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  readonly region: string;
  readonly accountId: string;
  /** Client configuration for the AWS SDK v3; `overrides` are merged on top. */
  clientConfig<T extends object = {}>(overrides?: T): Omit<ClientConfig, keyof T> & T;
  /** Deletes every resource of every account, drops run-time capacity changes, puts the clock back to its start. */
  reset(): Promise<void>;
  clock(): Promise<Clock>;
  /** Moves the clock to `time` (a Date or an ISO 8601 string); moving backwards is refused. */
  setClock(time: Date | string): Promise<Clock>;
  advance(seconds: number): Promise<Clock>;
  /** Freezes (default) or unfreezes the clock. */
  freeze(frozen?: boolean): Promise<Clock>;
  /** Changes or adds a capacity pool; waiting jobs that now fit start at once. */
  setPool(pool: PoolChange): Promise<Pool>;
  capacity(query?: { region?: string; instanceType?: string }): Promise<CapacityView>;
  /** The cost ledger: plans' fees and use, holders' instance-hours and on-demand cost, totals. */
  costs(query?: CostsQuery): Promise<CostLedger>;
  /** The same ledger as CSV text: a header line, then a row per plan, holder, preference job and total. */
  costsCsv(query?: CostsQuery): Promise<string>;
  /** GET /_emulator/report: one self-contained HTML page (the dashboard with the state and the whole ledger inside), as text. */
  report(): Promise<string>;
  /** Adds fault rules (POST /_emulator/faults), all or none; resolves to them with their ids. */
  addFaults(...rules: FaultRule[]): Promise<FaultRule[]>;
  /** The fault rules in force, each with where it came from and how often it matched and fired. */
  faults(): Promise<ListedFaultRule[]>;
  /** Removes the rule `id`, or every rule; resolves to how many were removed. */
  removeFaults(id?: string): Promise<number>;
  /** One rule in force until the handle is disposed (`await using`) or `remove()`d. */
  fault(rule: FaultRule): Promise<FaultHandle>;
  /** Stops a started emulator (SIGTERM, then SIGKILL after `timeoutMs`, default 5000); does nothing for a connected one. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

/** A fault rule (schemas/faults.schema.json): what it matches, how often it fires, and what it does. */
export interface FaultRule {
  id?: string;
  description?: string;
  operation?: string;
  account?: string;
  region?: string;
  resource?: string;
  times?: number;
  every?: number;
  probability?: number;
  seed?: number;
  error?: string | { code: string; status?: number; message?: string };
  latency_ms?: number;
  payment?: { status_message?: string };
  node_failure?: { at: string | number; instance_group?: string };
}

export interface ListedFaultRule extends FaultRule {
  id: string;
  source: 'file' | 'api';
  matched: number;
  fired: number;
}

export interface FaultHandle extends AsyncDisposable {
  rule: FaultRule & { id: string };
  remove(): Promise<void>;
}

/** Starts the binary on a free port with an in-memory database; resolves once it is healthy. */
export function startEmulator(options?: StartOptions): Promise<EmulatorHandle>;

/** Uses an emulator that already runs (default URL: $SAGEMAKER_EMULATOR_URL); resolves once it is healthy. */
export function connectEmulator(url?: string, options?: ConnectOptions): Promise<EmulatorHandle>;

/** An admin call answered 4xx/5xx. `name` is the emulator's __type, e.g. ValidationException or AccessDeniedException. */
export class EmulatorAdminError extends Error {
  readonly status: number;
}
