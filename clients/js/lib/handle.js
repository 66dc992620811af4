// The handle that startEmulator and connectEmulator return: where the emulator is, an AWS SDK
// client configuration for it, and its admin API (clock, capacity, reset, costs).
import { adminCaller } from './admin.js';

const DEFAULT_REGION = 'us-west-2';
const DEFAULT_ACCOUNT_ID = '123456789012';

export function createHandle({ url, region = DEFAULT_REGION, accountId = DEFAULT_ACCOUNT_ID, adminToken, stop }) {
  // The emulator takes a 12-digit access key id as the account; any other key would silently land
  // in the server's --account-id instead.
  if (!/^\d{12}$/.test(accountId)) throw new Error(`accountId must be 12 digits, got ${JSON.stringify(accountId)}`);
  const admin = adminCaller(url, adminToken);
  const moveClock = async (body) => toClock(await admin('POST', '/_emulator/clock', body));

  return {
    url,
    region,
    accountId,
    clientConfig: (overrides = {}) => ({
      endpoint: url,
      region,
      credentials: { accessKeyId: accountId, secretAccessKey: 'x' },
      ...overrides,
    }),
    reset: async () => {
      await admin('POST', '/_emulator/reset');
    },
    clock: async () => toClock(await admin('GET', '/_emulator/clock')),
    setClock: (time) => moveClock({ now: isoTime(time) }),
    advance: (seconds) => moveClock({ advance_seconds: seconds }),
    freeze: (frozen = true) => moveClock({ frozen }),
    setPool: (pool) => admin('POST', '/_emulator/capacity', poolBody(pool, region)),
    capacity: (query = {}) => admin('GET', `/_emulator/capacity${capacityQuery(query)}`),
    costs: (range = {}) => admin('GET', `/_emulator/costs${costsQuery(range)}`),
    costsCsv: (range = {}) => admin('GET', `/_emulator/costs${costsQuery(range, 'csv')}`, undefined, { accept: 'text/csv' }),
    report: () => admin('GET', '/_emulator/report', undefined, { accept: 'text/html' }),
    // Fault rules (POST/GET/DELETE /_emulator/faults), as the server's documents write them.
    addFaults: async (...rules) => (await admin('POST', '/_emulator/faults', { rules })).rules,
    faults: async () => (await admin('GET', '/_emulator/faults')).rules,
    removeFaults: async (id) =>
      (await admin('DELETE', `/_emulator/faults${id === undefined ? '' : `?id=${encodeURIComponent(id)}`}`)).removed,
    // One rule in force until the returned handle is disposed (`await using`) or removed.
    fault: async (rule) => {
      const [added] = (await admin('POST', '/_emulator/faults', { rules: [rule] })).rules;
      const remove = async () => { await admin('DELETE', `/_emulator/faults?id=${encodeURIComponent(added.id)}`); };
      return { rule: added, remove, [Symbol.asyncDispose]: remove };
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

const toClock = ({ now, epoch, frozen }) => ({ now: new Date(now), epoch, frozen });

// camelCase in JS, snake_case on the wire; members left undefined are not sent, so the server
// keeps their current value.
function poolBody({ region, availabilityZone, instanceType, reservable, onDemand }, defaultRegion) {
  return {
    region: region ?? defaultRegion,
    availability_zone: availabilityZone,
    instance_type: instanceType,
    reservable,
    on_demand: onDemand,
  };
}

function capacityQuery({ region, instanceType }) {
  const params = new URLSearchParams();
  if (region) params.set('region', region);
  if (instanceType) params.set('instance_type', instanceType);
  return queryString(params);
}

// The range of GET /_emulator/costs: Dates as ISO 8601 UTC, strings as given. The emulator checks
// the values (from before to, a 12-digit account) and refuses others with a ValidationException.
function costsQuery({ from, to, account }, format) {
  const params = new URLSearchParams();
  if (from !== undefined) params.set('from', isoTime(from));
  if (to !== undefined) params.set('to', isoTime(to));
  if (account !== undefined) params.set('account', account);
  if (format) params.set('format', format);
  return queryString(params);
}

const isoTime = (time) => (time instanceof Date ? time.toISOString() : time);

function queryString(params) {
  const query = params.toString();
  return query ? `?${query}` : '';
}
