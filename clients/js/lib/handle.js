// The handle that startEmulator and connectEmulator return: where the emulator is, an AWS SDK
// client configuration for it, and its admin API (clock, capacity, reset).
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
    setClock: (time) => moveClock({ now: time instanceof Date ? time.toISOString() : time }),
    advance: (seconds) => moveClock({ advance_seconds: seconds }),
    freeze: (frozen = true) => moveClock({ frozen }),
    setPool: (pool) => admin('POST', '/_emulator/capacity', poolBody(pool, region)),
    capacity: (query = {}) => admin('GET', `/_emulator/capacity${capacityQuery(query)}`),
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
  const query = params.toString();
  return query ? `?${query}` : '';
}
