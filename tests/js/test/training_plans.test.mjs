// Training plans sold from the capacity ledger, through @aws-sdk/client-sagemaker:
// SearchTrainingPlanOfferings, CreateTrainingPlan, DescribeTrainingPlan, ListTrainingPlans,
// DescribeReservedCapacity, and statuses that follow the virtual clock.
//
// Every test starts its own emulator on a small capacity file of its own, so that capacity sold
// and clock moves in one test cannot leak into another:
//   us-west-2  us-west-2a  ml.p5.48xlarge    2 reservable   (55.00 per plan hour)
//              us-west-2b  ml.p5.48xlarge    1 reservable
//   us-east-1  us-east-1a..d ml.trn1.32xlarge 3 reservable each (12.345 per plan hour)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateTrainingPlanCommand,
  DescribeReservedCapacityCommand,
  DescribeTrainingPlanCommand,
  ListTrainingPlansCommand,
  SearchTrainingPlanOfferingsCommand,
  paginateListTrainingPlans,
} from '@aws-sdk/client-sagemaker';
import { sagemaker } from '../lib/emulator.mjs';
import {
  T0, P0, MINUTE, HOUR, DAY, OTHER_ACCOUNT, P5, P5_PRICES, PAYMENT_SECONDS, PENDING_MESSAGE, SCHEDULED_MESSAGE,
  advance, clockTo, completePayment, expectError, planArn, searchAndBuy, withEmulator as withEmulatorOn,
  writeCapacityFile,
} from '../lib/fixtures.mjs';

const TRN1 = 'ml.trn1.32xlarge';
const OFFERING_ID = /^tpo-[0-9a-f]{64}$/;

const CAPACITY_FILE = writeCapacityFile({
  regions: {
    'us-west-2': {
      'us-west-2a': { [P5]: { reservable: 2, on_demand: 1 } },
      'us-west-2b': { [P5]: { reservable: 1 } },
    },
    'us-east-1': {
      'us-east-1a': { [TRN1]: { reservable: 3 } },
      'us-east-1b': { [TRN1]: { reservable: 3 } },
      'us-east-1c': { [TRN1]: { reservable: 3 } },
      'us-east-1d': { [TRN1]: { reservable: 3 } },
    },
  },
  prices: {
    [P5]: P5_PRICES,
    [TRN1]: { on_demand_hourly: 21.5, plan_hourly: 12.345 },
  },
});

const at = (ms) => new Date(ms);

// Runs `fn` against a fresh emulator (frozen clock at CLOCK_START, the capacity file above).
// `fn` gets { url, sm (123456789012, us-west-2), east (123456789012, us-east-1),
// other (210987654321, us-west-2) }.
const withEmulator = (fn) => withEmulatorOn(fn, { capacityFile: CAPACITY_FILE });

async function search(client, input) {
  const res = await client.send(new SearchTrainingPlanOfferingsCommand(input));
  assert.equal(res.$metadata.httpStatusCode, 200);
  assert.ok(Array.isArray(res.TrainingPlanOfferings), 'TrainingPlanOfferings is always a list');
  return res.TrainingPlanOfferings;
}

// "zone start-ISO end-ISO" of each offering's single reserved-capacity offering.
function slots(offerings) {
  return offerings.map((o) => {
    assert.equal(o.ReservedCapacityOfferings?.length, 1, JSON.stringify(o));
    const rc = o.ReservedCapacityOfferings[0];
    assert.ok(rc.StartTime instanceof Date && rc.EndTime instanceof Date);
    return `${rc.AvailabilityZone} ${rc.StartTime.toISOString()} ${rc.EndTime.toISOString()}`;
  });
}
const slotTo = (zone, startMs, endMs) => `${zone} ${new Date(startMs).toISOString()} ${new Date(endMs).toISOString()}`;
const slot = (zone, startMs, hours) => slotTo(zone, startMs, startMs + hours * HOUR);

// Searches a window that fits exactly one plan of `hours` (default 24) from `startMs` (a plan day's
// 11:30 UTC), and buys the offering in `zone` (default: the first one). Returns { arn, offering }.
const buyWindow = (client, name, startMs, opts = {}) => searchAndBuy(client, name, { startMs, ...opts });

// The call must fail with `code` at HTTP 400, as the SDK decodes it and as it went over the wire
// (expectError of lib/fixtures.mjs with any non-empty message).

const describePlan = (client, name) => client.send(new DescribeTrainingPlanCommand({ TrainingPlanName: name }));
const listPlans = (client, input = {}) => client.send(new ListTrainingPlansCommand(input));
const RC_ARN = /^arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity\/rc-[0-9a-f]+$/;

// ------------------------------------------------------------------------------------ search

// The plan windows AWS documents: "Training Plans always end at 11:30 AM UTC on the final day of
// the reservation", offerings "may be available to start within 30 minutes of reservation", and a
// plan can be reserved "up to 8 weeks (56 days) in advance of the start date". A search that
// allows a start within 30 minutes gets, per zone, a plan that starts at once (30 minutes after
// the clock, on the next whole minute) and lasts to the first 11:30 UTC that gives it the hours,
// the same plan one day longer, then plans of whole days from 11:30 UTC; a later search gets plans
// of whole days from 11:30 UTC only. A search returns "up to three offerings of one or two
// segments" (Reserve training plans in the console): the three that start soonest, ties by zone
// (in order), then the shorter plan first.
const SOON = T0 + 30 * MINUTE;  // the earliest start for the clock at T0: 2027-01-20T00:30:00Z

test('search: per zone a plan that starts at once, the same a day longer, then one from 11:30 UTC; the three soonest, by start then zone', async () => {
  await withEmulator(async ({ sm }) => {
    const input = {
      TargetResources: ['endpoint'], InstanceType: P5, InstanceCount: 1, DurationHours: 168,
      StartTimeAfter: at(T0), EndTimeBefore: new Date('2027-02-03T00:00:00Z'),
    };
    const offerings = await search(sm, input);
    // 00:30 + 168 h is Jan 27 00:30: that plan runs to Jan 27 11:30 (179 h), its twin to Jan 28
    // 11:30 (203 h). Both zones have both, all starting at once: at most three are offered, zone
    // a's two, then zone b's shorter one.
    assert.deepEqual(slots(offerings), [
      slotTo('us-west-2a', SOON, P0 + 7 * DAY), slotTo('us-west-2a', SOON, P0 + 8 * DAY),
      slotTo('us-west-2b', SOON, P0 + 7 * DAY),
    ]);
    assert.deepEqual(offerings.map((o) => [o.DurationHours, o.DurationMinutes, o.UpfrontFee]), [
      [179, 0, '9845.00'], [203, 0, '11165.00'], [179, 0, '9845.00'],
    ], 'hours x 1 x 55.00');
    // A start later than at once: the plans from 11:30 UTC today, which last the 168 hours, then
    // the next day's.
    const fromPlanDay = await search(sm, { ...input, StartTimeAfter: at(SOON + 1000) });
    assert.deepEqual(slots(fromPlanDay), [
      slot('us-west-2a', P0, 168), slot('us-west-2b', P0, 168), slot('us-west-2a', P0 + DAY, 168),
    ]);
    assert.deepEqual(fromPlanDay.map((o) => [o.DurationHours, o.DurationMinutes, o.UpfrontFee]), [
      [168, 0, '9240.00'], [168, 0, '9240.00'], [168, 0, '9240.00'],
    ], '168 h x 1 x 55.00');
    for (const o of [...offerings, ...fromPlanDay]) {
      assert.match(o.TrainingPlanOfferingId, OFFERING_ID);
      assert.deepEqual(o.TargetResources, ['endpoint']);
      assert.ok(o.RequestedStartTimeAfter instanceof Date);
      assert.deepEqual(o.RequestedStartTimeAfter, offerings.includes(o) ? at(T0) : at(SOON + 1000));
      assert.ok(o.RequestedEndTimeBefore instanceof Date);
      assert.deepEqual(o.RequestedEndTimeBefore, new Date('2027-02-03T00:00:00.000Z'));
      assert.equal(o.CurrencyCode, 'USD');
      const [rc] = o.ReservedCapacityOfferings;
      assert.equal(rc.ReservedCapacityType, 'Instance');
      assert.equal(rc.InstanceType, P5);
      assert.equal(rc.InstanceCount, 1);
      assert.equal(rc.DurationHours, o.DurationHours);
      assert.equal(rc.DurationMinutes, o.DurationMinutes);
      assert.equal(rc.EndTime.toISOString().slice(11), '11:30:00.000Z', 'every plan ends at 11:30 UTC');
    }
    const all = [...offerings, ...fromPlanDay];
    assert.equal(new Set(all.map((o) => o.TrainingPlanOfferingId)).size, all.length, 'each offering has its own id');
  });
});

test('search defaults: 1 instance, 24 hours, from now, for training jobs; no EndTimeBefore echoed', async () => {
  await withEmulator(async ({ sm }) => {
    const offerings = await search(sm, { InstanceType: P5 });
    // 00:30 + 24 h is Jan 21 00:30: the plan that starts at once runs to Jan 21 11:30 (35 h); the
    // three soonest are zone a's two and zone b's shorter one.
    assert.deepEqual(slots(offerings), [
      slotTo('us-west-2a', SOON, P0 + DAY), slotTo('us-west-2a', SOON, P0 + 2 * DAY),
      slotTo('us-west-2b', SOON, P0 + DAY),
    ]);
    assert.deepEqual(offerings.map((o) => [o.DurationHours, o.DurationMinutes, o.UpfrontFee]), [
      [35, 0, '1925.00'], [59, 0, '3245.00'], [35, 0, '1925.00'],
    ], 'hours x 1 x 55.00');
    for (const o of offerings) {
      assert.deepEqual(o.TargetResources, ['training-job']);
      assert.deepEqual(o.RequestedStartTimeAfter, at(T0));
      assert.equal(o.RequestedEndTimeBefore, undefined, 'echoed only when it was given');
      assert.equal(o.ReservedCapacityOfferings[0].InstanceCount, 1);
    }
  });
});

// The developer guide's sample: `--duration-hours 15` searched at 19:08:27 UTC offers 15 h 51 min
// and 39 h 51 min from 19:39, and 24 h from 11:30 UTC the next day (one zone's three). With two
// zones the three soonest are zone a's two and zone b's 15 h 51 min; the 24 h plans come first
// for a later start.
test('search: the guide\'s 15-hour sample, paid by the minute', async () => {
  await withEmulator(async ({ url, sm }) => {
    await clockTo(url, Date.parse('2027-01-20T19:08:27Z'));
    const offerings = await search(sm, { InstanceType: P5, DurationHours: 15 });
    const soon = Date.parse('2027-01-20T19:39:00Z');  // 19:38:27 on the next whole minute
    assert.deepEqual(slots(offerings), [
      slotTo('us-west-2a', soon, P0 + DAY), slotTo('us-west-2a', soon, P0 + 2 * DAY),
      slotTo('us-west-2b', soon, P0 + DAY),
    ]);
    // 15.85 h and 39.85 h x 1 x 55.00.
    assert.deepEqual(offerings.map((o) => [o.DurationHours, o.DurationMinutes, o.UpfrontFee]), [
      [15, 51, '871.75'], [39, 51, '2191.75'], [15, 51, '871.75'],
    ]);
    assert.deepEqual(offerings[0].RequestedStartTimeAfter, new Date('2027-01-20T19:08:27.000Z'));
    const nextDay = await search(sm, { InstanceType: P5, DurationHours: 15, StartTimeAfter: at(soon + 1000) });
    assert.deepEqual(slots(nextDay), [
      slot('us-west-2a', P0 + DAY, 24), slot('us-west-2b', P0 + DAY, 24), slot('us-west-2a', P0 + 2 * DAY, 24),
    ]);
    assert.deepEqual(nextDay.map((o) => [o.DurationHours, o.DurationMinutes, o.UpfrontFee]),
      [[24, 0, '1320.00'], [24, 0, '1320.00'], [24, 0, '1320.00']]);

    // Bought, the plan keeps its minutes and its fee, Pending until paid, then Scheduled.
    await sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'sample', TrainingPlanOfferingId: offerings[0].TrainingPlanOfferingId,
    }));
    let d = await describePlan(sm, 'sample');
    assert.deepEqual([d.Status, d.StartTime, d.EndTime, d.DurationHours, d.DurationMinutes, d.UpfrontFee],
      ['Pending', at(soon), at(P0 + DAY), 15, 51, '871.75']);
    await completePayment(url);
    d = await describePlan(sm, 'sample');
    assert.deepEqual([d.Status, d.StartTime, d.EndTime, d.DurationHours, d.DurationMinutes, d.UpfrontFee],
      ['Scheduled', at(soon), at(P0 + DAY), 15, 51, '871.75']);
  });
});

test('search: the same search gives the same offering ids', async () => {
  await withEmulator(async ({ sm }) => {
    const input = { InstanceType: P5, DurationHours: 48, StartTimeAfter: at(T0 + 5 * DAY) };
    const first = await search(sm, input);
    const second = await search(sm, input);
    assert.equal(first.length, 3, 'up to three offerings');
    assert.deepEqual(second.map((o) => o.TrainingPlanOfferingId), first.map((o) => o.TrainingPlanOfferingId));
    for (const o of first) assert.match(o.TrainingPlanOfferingId, OFFERING_ID);
    // A different search (another duration) gives other offerings with other ids.
    const other = await search(sm, { ...input, DurationHours: 72 });
    const firstIds = new Set(first.map((o) => o.TrainingPlanOfferingId));
    assert.ok(other.length > 0);
    assert.ok(other.every((o) => !firstIds.has(o.TrainingPlanOfferingId)));
  });
});

test('search: a start at once is 30 minutes out on the next whole minute, later ones at 11:30 UTC, never before now', async () => {
  await withEmulator(async ({ url, sm }) => {
    // StartTimeAfter exactly 30 minutes out still allows a start at once.
    const half = await search(sm, { InstanceType: P5, StartTimeAfter: at(T0 + 30 * MINUTE) });
    assert.deepEqual(slots(half), [
      slotTo('us-west-2a', SOON, P0 + DAY), slotTo('us-west-2a', SOON, P0 + 2 * DAY), slotTo('us-west-2b', SOON, P0 + DAY),
    ]);
    assert.deepEqual(half[0].RequestedStartTimeAfter, at(T0 + 30 * MINUTE));
    // A second later it does not: plans start at 11:30 UTC.
    const later = await search(sm, { InstanceType: P5, StartTimeAfter: at(T0 + 30 * MINUTE + 1000) });
    assert.deepEqual(slots(later), [
      slot('us-west-2a', P0, 24), slot('us-west-2b', P0, 24), slot('us-west-2a', P0 + DAY, 24),
    ]);

    // The clock moves to 01:30:27; a StartTimeAfter in the past means "from now": 02:00:27, on
    // the next whole minute 02:01, to Jan 21 11:30 (33 h 29 min).
    await advance(url, 90 * 60 + 27);
    const now = T0 + 90 * MINUTE + 27_000;
    const soon = T0 + 2 * HOUR + MINUTE;
    const past = await search(sm, { InstanceType: P5, StartTimeAfter: new Date('2026-12-01T00:00:00Z') });
    assert.deepEqual(slots(past), [
      slotTo('us-west-2a', soon, P0 + DAY), slotTo('us-west-2a', soon, P0 + 2 * DAY), slotTo('us-west-2b', soon, P0 + DAY),
    ]);
    assert.deepEqual([past[0].DurationHours, past[0].DurationMinutes, past[0].UpfrontFee], [33, 29, '1841.58'],
      '33 h 29 min x 1 x 55.00');
    assert.deepEqual(past[0].RequestedStartTimeAfter, at(now));
    const dflt = await search(sm, { InstanceType: P5 });
    assert.deepEqual(slots(dflt), slots(past));
    assert.deepEqual(dflt[0].RequestedStartTimeAfter, at(now));
    assert.equal(dflt[0].RequestedEndTimeBefore, undefined);
  });
});

test('search: plans start at most 56 days ahead; a StartTimeAfter beyond that is a ValidationException', async () => {
  await withEmulator(async ({ sm }) => {
    // The last plan day that starts within 56 days of 2027-01-20T00:00 is 2027-03-16 11:30.
    const last = await search(sm, { InstanceType: P5, StartTimeAfter: at(T0 + 55 * DAY) });
    assert.deepEqual(slots(last), [slot('us-west-2a', P0 + 55 * DAY, 24), slot('us-west-2b', P0 + 55 * DAY, 24)]);
    assert.deepEqual(await search(sm, { InstanceType: P5, StartTimeAfter: at(T0 + 56 * DAY) }), [],
      'the next plan day starts 56 days 11.5 hours ahead');
    await expectError(sm, sm.send(new SearchTrainingPlanOfferingsCommand({
      InstanceType: P5, StartTimeAfter: at(T0 + 56 * DAY + 1000),
    })), 'ValidationException', /^StartTimeAfter 2027-03-17T00:00:01Z is more than 56 days ahead/);
    // Near the horizon a zone offers only the starts within it: two, not three (two instances:
    // us-west-2a alone).
    const near = await search(sm, { InstanceType: P5, InstanceCount: 2, StartTimeAfter: at(P0 + 54 * DAY) });
    assert.deepEqual(slots(near), [slot('us-west-2a', P0 + 54 * DAY, 24), slot('us-west-2a', P0 + 55 * DAY, 24)]);
    const both = await search(sm, { InstanceType: P5, StartTimeAfter: at(P0 + 54 * DAY) });
    assert.deepEqual(slots(both), [
      slot('us-west-2a', P0 + 54 * DAY, 24), slot('us-west-2b', P0 + 54 * DAY, 24), slot('us-west-2a', P0 + 55 * DAY, 24),
    ]);
  });
});

test('search: InstanceCount beyond a zone leaves that zone out; the fee scales with the count', async () => {
  await withEmulator(async ({ sm }) => {
    const two = await search(sm, { InstanceType: P5, InstanceCount: 2, StartTimeAfter: at(P0) });
    assert.deepEqual(slots(two), [
      slot('us-west-2a', P0, 24), slot('us-west-2a', P0 + DAY, 24), slot('us-west-2a', P0 + 2 * DAY, 24),
    ]);
    for (const o of two) {
      assert.equal(o.ReservedCapacityOfferings[0].InstanceCount, 2);
      assert.equal(o.UpfrontFee, '2640.00', '24 h x 2 x 55.00');
    }
    assert.deepEqual(await search(sm, { InstanceType: P5, InstanceCount: 4 }), []);
  });
});

test('search: no capacity of that type or in that region is an empty list, not an error', async () => {
  await withEmulator(async ({ url, sm }) => {
    assert.deepEqual(await search(sm, { InstanceType: 'ml.p4d.24xlarge' }), []);
    const ireland = sagemaker(url, { region: 'eu-west-1' });
    assert.deepEqual(await search(ireland, { InstanceType: P5 }), []);
    const east = sagemaker(url, { region: 'us-east-1' });
    assert.deepEqual(await search(east, { InstanceType: P5 }), [], 'us-east-1 has no p5 in this file');
  });
});

// "up to three offerings of one or two segments" (Reserve training plans in the console): of the
// twelve windows four zones have (three each), the three that start soonest, ties by zone.
test('search: at most three offerings, sorted by start then zone', async () => {
  await withEmulator(async ({ east }) => {
    const offerings = await search(east, { InstanceType: TRN1, StartTimeAfter: at(P0) });
    assert.deepEqual(slots(offerings), [
      slot('us-east-1a', P0, 24), slot('us-east-1b', P0, 24), slot('us-east-1c', P0, 24),
    ], 'us-east-1d starts as soon, but comes fourth');
    for (const o of offerings) assert.equal(o.UpfrontFee, '296.28', '24 h x 1 x 12.345');
    // From now: the plans that start at once come first, each zone's shorter one first.
    const fromNow = await search(east, { InstanceType: TRN1 });
    assert.deepEqual(slots(fromNow), [
      slotTo('us-east-1a', SOON, P0 + DAY), slotTo('us-east-1a', SOON, P0 + 2 * DAY), slotTo('us-east-1b', SOON, P0 + DAY),
    ]);
    // A day later: the next plan day's, again from the first zones.
    assert.deepEqual(slots(await search(east, { InstanceType: TRN1, StartTimeAfter: at(P0 + DAY) })), [
      slot('us-east-1a', P0 + DAY, 24), slot('us-east-1b', P0 + DAY, 24), slot('us-east-1c', P0 + DAY, 24),
    ]);
  });
});

test('search: only windows that fit entirely before EndTimeBefore are offered', async () => {
  await withEmulator(async ({ sm }) => {
    const tight = await search(sm, {
      InstanceType: P5, DurationHours: 48, StartTimeAfter: at(P0), EndTimeBefore: at(P0 + 48 * HOUR),
    });
    assert.deepEqual(slots(tight), [slot('us-west-2a', P0, 48), slot('us-west-2b', P0, 48)]);
    const tooShort = await search(sm, {
      InstanceType: P5, DurationHours: 48, StartTimeAfter: at(P0), EndTimeBefore: at(P0 + 47 * HOUR),
    });
    assert.deepEqual(tooShort, []);
    const oneMore = await search(sm, {
      InstanceType: P5, DurationHours: 48, StartTimeAfter: at(P0), EndTimeBefore: at(P0 + 49 * HOUR),
    });
    assert.deepEqual(slots(oneMore), [slot('us-west-2a', P0, 48), slot('us-west-2b', P0, 48)],
      'the next start a day later would not fit');
    // From now: the plan that starts at once fits (00:30 + 48 h -> Jan 22 11:30), its twin a day
    // longer does not; then the three soonest end with zone a's plan from 11:30.
    const fromNow = await search(sm, {
      InstanceType: P5, DurationHours: 48, StartTimeAfter: at(T0), EndTimeBefore: at(P0 + 2 * DAY),
    });
    assert.deepEqual(slots(fromNow), [
      slotTo('us-west-2a', SOON, P0 + 2 * DAY), slotTo('us-west-2b', SOON, P0 + 2 * DAY),
      slot('us-west-2a', P0, 48),
    ]);
  });
});

// "The DurationHour is rounded up to the nearest multiple of 24." "Reservation durations are
// available in 1-day increments from 1 to 182 days." "The reservation instance quantity options are
// 1, 2, 4, 8, 16, 32 or 64 instances." (developer guide, search training plan offerings) A plan
// that starts at once lasts to the first 11:30 UTC that gives it the hours.
test('search: DurationHours rounds up to whole days, 1 to 182; 1, 2, 4 ... 64 instances', async () => {
  await withEmulator(async ({ sm }) => {
    for (const [hours, rounded] of [[1, 24], [15, 24], [23, 24], [25, 48], [36, 48]]) {
      const found = await search(sm, {
        InstanceType: P5, DurationHours: hours, TargetResources: ['endpoint'], StartTimeAfter: at(P0),
      });
      assert.equal(found[0].DurationHours, rounded, `${hours} h`);
      assert.equal(found[0].DurationMinutes, 0, `${hours} h`);
    }
    // From 00:30: to 11:30 the same day (11 h), or the next (35 h), or the one after (59 h).
    for (const [hours, until] of [[1, 11], [11, 11], [12, 35], [15, 35], [35, 35], [36, 59]]) {
      const found = await search(sm, { InstanceType: P5, DurationHours: hours, TargetResources: ['endpoint'] });
      assert.equal(slots(found)[0], slot('us-west-2a', SOON, until), `${hours} h`);
      assert.equal(found[0].DurationHours, until, `${hours} h`);
    }
    for (const hours of [4369, 4392]) {
      await expectError(sm, sm.send(new SearchTrainingPlanOfferingsCommand({ InstanceType: P5, DurationHours: hours })),
        'ValidationException');
    }
    for (const count of [3, 5, 65]) {
      await expectError(sm, sm.send(new SearchTrainingPlanOfferingsCommand({ InstanceType: P5, InstanceCount: count })),
        'ValidationException');
    }
    const longest = await search(sm, {
      InstanceType: P5, DurationHours: 4368, StartTimeAfter: at(P0), EndTimeBefore: at(P0 + 200 * DAY),
    });
    assert.ok(longest.length > 0);
    assert.equal(slots(longest)[0], slot('us-west-2a', P0, 4368));
    assert.equal(longest[0].DurationHours, 4368);
    assert.equal(longest[0].UpfrontFee, '240240.00', '4368 h x 1 x 55.00');
  });
});

// ------------------------------------------------------------------------------------ purchase

test('buy an offering: Pending for 30 seconds, then Scheduled; describe it, list it and describe its reserved capacity', async () => {
  await withEmulator(async ({ url, sm }) => {
    const start = P0 + 3 * DAY;
    const offerings = await search(sm, {
      InstanceType: P5, InstanceCount: 2, DurationHours: 72, TargetResources: ['endpoint'],
      StartTimeAfter: at(start), EndTimeBefore: at(start + 10 * DAY),
    });
    const offering = offerings[0];
    assert.equal(slots([offering])[0], slot('us-west-2a', start, 72));
    const created = await sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'My-P5-Plan', TrainingPlanOfferingId: offering.TrainingPlanOfferingId,
      Tags: [{ Key: 'team', Value: 'ml' }],
    }));
    assert.equal(created.$metadata.httpStatusCode, 200);
    assert.equal(created.TrainingPlanArn, planArn('My-P5-Plan'));

    // "When created, the plan initially enters a Pending state and remains there until the
    // reservation process is complete" (Reserve the best training plan): Pending, its reserved
    // capacity too, for the payment's 30 seconds of clock time; then Scheduled.
    const statuses = async () => {
      const plan = await describePlan(sm, 'My-P5-Plan');
      const [summary] = (await listPlans(sm)).TrainingPlanSummaries;
      const rcArn = plan.ReservedCapacitySummaries[0].ReservedCapacityArn;
      const capacity = await sm.send(new DescribeReservedCapacityCommand({ ReservedCapacityArn: rcArn }));
      return [plan.Status, plan.StatusMessage, plan.ReservedCapacitySummaries[0].Status, summary.Status, capacity.Status];
    };
    assert.deepEqual(await statuses(), ['Pending', PENDING_MESSAGE, 'Pending', 'Pending', 'Pending']);
    await advance(url, PAYMENT_SECONDS - 1);
    assert.deepEqual(await statuses(), ['Pending', PENDING_MESSAGE, 'Pending', 'Pending', 'Pending']);
    await advance(url, 1);
    assert.deepEqual(await statuses(), ['Scheduled', SCHEDULED_MESSAGE, 'Scheduled', 'Scheduled', 'Scheduled']);

    const d = await describePlan(sm, 'my-p5-PLAN');
    assert.equal(d.TrainingPlanArn, created.TrainingPlanArn);
    assert.equal(d.TrainingPlanName, 'My-P5-Plan', 'the name keeps the caller\'s case');
    assert.equal(d.Status, 'Scheduled');
    assert.equal(d.StatusMessage, SCHEDULED_MESSAGE);
    assert.equal(d.DurationHours, 72);
    assert.equal(d.DurationMinutes, 0);
    assert.ok(d.StartTime instanceof Date && d.EndTime instanceof Date);
    assert.deepEqual(d.StartTime, new Date('2027-01-23T11:30:00.000Z'));
    assert.deepEqual(d.EndTime, new Date('2027-01-26T11:30:00.000Z'));
    assert.equal(d.UpfrontFee, '7920.00', '72 h x 2 x 55.00');
    assert.equal(d.UpfrontFee, offering.UpfrontFee);
    assert.equal(d.CurrencyCode, 'USD');
    assert.equal(d.TotalInstanceCount, 2);
    assert.equal(d.AvailableInstanceCount, 2);
    assert.equal(d.InUseInstanceCount, 0);
    assert.deepEqual(d.TargetResources, ['endpoint']);
    assert.equal(d.ReservedCapacitySummaries?.length, 1);
    const rc = d.ReservedCapacitySummaries[0];
    assert.match(rc.ReservedCapacityArn, RC_ARN);
    assert.equal(rc.ReservedCapacityType, 'Instance');
    assert.equal(rc.InstanceType, P5);
    assert.equal(rc.TotalInstanceCount, 2);
    assert.equal(rc.Status, 'Scheduled');
    assert.equal(rc.AvailabilityZone, 'us-west-2a');
    assert.equal(rc.DurationHours, 72);
    assert.equal(rc.DurationMinutes, 0);
    assert.deepEqual(rc.StartTime, new Date('2027-01-23T11:30:00.000Z'));
    assert.deepEqual(rc.EndTime, new Date('2027-01-26T11:30:00.000Z'));

    const listed = await listPlans(sm);
    assert.equal(listed.TrainingPlanSummaries.length, 1);
    assert.equal(listed.NextToken, undefined);
    const s = listed.TrainingPlanSummaries[0];
    assert.equal(s.TrainingPlanArn, d.TrainingPlanArn);
    assert.equal(s.TrainingPlanName, 'My-P5-Plan');
    assert.equal(s.Status, 'Scheduled');
    assert.deepEqual(s.StartTime, d.StartTime);
    assert.deepEqual(s.EndTime, d.EndTime);
    assert.equal(s.DurationHours, 72);
    assert.equal(s.UpfrontFee, '7920.00');
    assert.equal(s.CurrencyCode, 'USD');
    assert.equal(s.TotalInstanceCount, 2);
    assert.deepEqual(s.TargetResources, ['endpoint']);

    const r = await sm.send(new DescribeReservedCapacityCommand({ ReservedCapacityArn: rc.ReservedCapacityArn }));
    assert.equal(r.ReservedCapacityArn, rc.ReservedCapacityArn);
    assert.equal(r.ReservedCapacityType, 'Instance');
    assert.equal(r.Status, 'Scheduled');
    assert.equal(r.AvailabilityZone, 'us-west-2a');
    assert.equal(r.DurationHours, 72);
    assert.equal(r.DurationMinutes, 0);
    assert.deepEqual(r.StartTime, new Date('2027-01-23T11:30:00.000Z'));
    assert.deepEqual(r.EndTime, new Date('2027-01-26T11:30:00.000Z'));
    assert.equal(r.InstanceType, P5);
    assert.equal(r.TotalInstanceCount, 2);
    assert.equal(r.AvailableInstanceCount, 2);
    assert.equal(r.InUseInstanceCount, 0);
  });
});

// "SageMaker training plans offerings may be available to start within 30 minutes of
// reservation"; "the payment transaction must successfully complete at least 5 minutes before the
// desired start time": with the payment's 30 seconds, a purchase 5 min 30 s before the start.
test('a plan bought to start at once is Pending, Scheduled until its start 30 minutes out, then Active; its payment completes no later than 5 minutes before', async () => {
  await withEmulator(async ({ url, sm }) => {
    const offerings = await search(sm, { InstanceType: P5, DurationHours: 168, TargetResources: ['endpoint'] });
    const [atOnce, twin] = offerings;
    assert.deepEqual(slots([atOnce, twin]), [
      slotTo('us-west-2a', SOON, P0 + 7 * DAY), slotTo('us-west-2a', SOON, P0 + 8 * DAY),
    ]);
    // 24 min 30 s later the plan starts in 5 min 30 s: paid 30 s later, exactly 5 minutes before
    // it starts, still in time.
    await advance(url, 25 * 60 - PAYMENT_SECONDS);
    await sm.send(new CreateTrainingPlanCommand({ TrainingPlanName: 'starts-now', TrainingPlanOfferingId: atOnce.TrainingPlanOfferingId }));
    const d = await describePlan(sm, 'starts-now');
    assert.equal(d.Status, 'Pending');
    assert.equal(d.ReservedCapacitySummaries[0].Status, 'Pending');
    assert.deepEqual(d.StartTime, at(SOON));
    assert.deepEqual(d.EndTime, new Date('2027-01-27T11:30:00.000Z'));
    assert.deepEqual([d.DurationHours, d.DurationMinutes], [179, 0]);
    assert.equal(d.UpfrontFee, '9845.00', '179 h x 1 x 55.00');
    // A second later a payment would complete less than 5 minutes before the same start: refused,
    // and nothing is sold.
    await advance(url, 1);
    await expectError(sm, sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'too-close', TrainingPlanOfferingId: twin.TrainingPlanOfferingId,
    })), 'ValidationException',
    /starts at 2027-01-20T00:30:00Z: a purchase must complete at least 5 minutes before the plan starts\. Search for offerings again\.$/);
    await expectError(sm, describePlan(sm, 'too-close'), 'ResourceNotFound');
    assert.equal((await listPlans(sm)).TrainingPlanSummaries.length, 1);
    // us-west-2a (2 instances) has one left for that week.
    assert.deepEqual(slots(await search(sm, {
      InstanceType: P5, DurationHours: 168, StartTimeAfter: at(P0), EndTimeBefore: at(P0 + 7 * DAY),
    })), [slot('us-west-2a', P0, 168), slot('us-west-2b', P0, 168)]);

    // Paid 30 s after the purchase, 5 minutes before its start; at its start the plan is Active.
    await clockTo(url, SOON - 5 * MINUTE - 1000);
    assert.equal((await describePlan(sm, 'starts-now')).Status, 'Pending');
    await clockTo(url, SOON - 5 * MINUTE);
    const paid = await describePlan(sm, 'starts-now');
    assert.deepEqual([paid.Status, paid.ReservedCapacitySummaries[0].Status], ['Scheduled', 'Scheduled']);
    await clockTo(url, SOON - 1000);
    assert.equal((await describePlan(sm, 'starts-now')).Status, 'Scheduled');
    await clockTo(url, SOON);
    const active = await describePlan(sm, 'starts-now');
    assert.equal(active.Status, 'Active');
    assert.equal(active.ReservedCapacitySummaries[0].Status, 'Active');
  });
});

// ------------------------------------------------------------------------------------ capacity

test('capacity runs out: a sold zone is no longer offered for that window, then nothing is, then two blocks around it', async () => {
  await withEmulator(async ({ sm }) => {
    const start = P0 + 7 * DAY;
    const window = { InstanceType: P5, StartTimeAfter: at(start), EndTimeBefore: at(start + DAY) };
    assert.deepEqual(slots(await search(sm, window)), [slot('us-west-2a', start, 24), slot('us-west-2b', start, 24)]);

    // us-west-2a holds 2: one plan of 1 leaves 1 there, the second sells the zone out.
    await buyWindow(sm, 'zone-a-1', start, { zone: 'us-west-2a' });
    assert.deepEqual(slots(await search(sm, window)), [slot('us-west-2a', start, 24), slot('us-west-2b', start, 24)]);
    assert.deepEqual(await search(sm, { ...window, InstanceCount: 2 }), [], 'only 1 left in us-west-2a');
    await buyWindow(sm, 'zone-a-2', start, { zone: 'us-west-2a' });
    assert.deepEqual(slots(await search(sm, window)), [slot('us-west-2b', start, 24)]);

    // us-west-2b holds 1; once it is sold the window has nothing left anywhere.
    await buyWindow(sm, 'zone-b-1', start, { zone: 'us-west-2b' });
    assert.deepEqual(await search(sm, window), []);

    // No two days in a row are left around the sold day: "it automatically attempts to fulfill the
    // request using two separate Reserved Capacity blocks", so each zone offers the day before and
    // the day after as one plan of two reserved capacities. The windows before and after are
    // untouched.
    const split = await search(sm, {
      InstanceType: P5, DurationHours: 48, StartTimeAfter: at(start - DAY), EndTimeBefore: at(start + 2 * DAY),
    });
    assert.deepEqual(split.map((o) => o.ReservedCapacityOfferings.map((rc) => slotTo(rc.AvailabilityZone, rc.StartTime.getTime(), rc.EndTime.getTime()))), [
      [slot('us-west-2a', start - DAY, 24), slot('us-west-2a', start + DAY, 24)],
      [slot('us-west-2b', start - DAY, 24), slot('us-west-2b', start + DAY, 24)],
    ]);
    assert.deepEqual(split.map((o) => [o.DurationHours, o.UpfrontFee]), [[48, '2640.00'], [48, '2640.00']], 'the two days, not the gap');
    assert.deepEqual(slots(await search(sm, { InstanceType: P5, StartTimeAfter: at(start + DAY), EndTimeBefore: at(start + 2 * DAY) })),
      [slot('us-west-2a', start + DAY, 24), slot('us-west-2b', start + DAY, 24)]);
    assert.deepEqual(slots(await search(sm, { InstanceType: P5, StartTimeAfter: at(start - DAY), EndTimeBefore: at(start) })),
      [slot('us-west-2a', start - DAY, 24), slot('us-west-2b', start - DAY, 24)]);
  });
});

test('capacity: a search around a sold stretch offers the first free window after it', async () => {
  await withEmulator(async ({ sm }) => {
    // Sell us-west-2a (2 instances) for a week from the first plan day.
    await buyWindow(sm, 'week-a', P0, { hours: 168, count: 2, zone: 'us-west-2a' });
    // The three soonest are all us-west-2b's now.
    const offerings = await search(sm, { InstanceType: P5, DurationHours: 48, StartTimeAfter: at(P0) });
    assert.deepEqual(slots(offerings), [
      slot('us-west-2b', P0, 48), slot('us-west-2b', P0 + DAY, 48), slot('us-west-2b', P0 + 2 * DAY, 48),
    ]);
    // Two instances (us-west-2a alone): its first free windows are after the sold week.
    const zoneA = await search(sm, { InstanceType: P5, InstanceCount: 2, DurationHours: 48, StartTimeAfter: at(P0) });
    assert.deepEqual(slots(zoneA), [
      slot('us-west-2a', P0 + 7 * DAY, 48), slot('us-west-2a', P0 + 8 * DAY, 48), slot('us-west-2a', P0 + 9 * DAY, 48),
    ]);
    // From now: us-west-2a has no plan that starts at once either, since it would overlap the week.
    const fromNow = await search(sm, { InstanceType: P5, DurationHours: 48 });
    assert.deepEqual(slots(fromNow), [
      slotTo('us-west-2b', SOON, P0 + 2 * DAY), slotTo('us-west-2b', SOON, P0 + 3 * DAY), slot('us-west-2b', P0, 48),
    ]);
    assert.deepEqual(slots(await search(sm, { InstanceType: P5, InstanceCount: 2, DurationHours: 48 })), slots(zoneA));
  });
});

test('capacity: alternatives skip a sold stretch, each at least a day after the one before', async () => {
  await withEmulator(async ({ sm }) => {
    // Sell us-west-2b (1 instance) for the second plan day, [P0 + 1 day, P0 + 2 days).
    await buyWindow(sm, 'day-two', P0 + DAY, { zone: 'us-west-2b' });
    const fromFirstDay = await search(sm, { InstanceType: P5, StartTimeAfter: at(P0) });
    assert.deepEqual(slots(fromFirstDay), [
      slot('us-west-2a', P0, 24), slot('us-west-2b', P0, 24), slot('us-west-2a', P0 + DAY, 24),
    ]);
    // Sell us-west-2a (2 instances) for the first ten plan days as well: the three soonest are
    // us-west-2b's alternatives, the sold day skipped.
    await buyWindow(sm, 'ten-days-a', P0, { hours: 240, count: 2, zone: 'us-west-2a' });
    assert.deepEqual(slots(await search(sm, { InstanceType: P5, StartTimeAfter: at(P0) })), [
      slot('us-west-2b', P0, 24), slot('us-west-2b', P0 + 2 * DAY, 24), slot('us-west-2b', P0 + 3 * DAY, 24),
    ]);
    // From now, the us-west-2b plan that starts at once ends exactly where the sold day begins; its
    // one-day-longer twin would overlap it and is not offered.
    const fromNow = await search(sm, { InstanceType: P5, StartTimeAfter: at(T0) });
    assert.deepEqual(slots(fromNow), [
      slotTo('us-west-2b', SOON, P0 + DAY), slot('us-west-2b', P0, 24), slot('us-west-2b', P0 + 2 * DAY, 24),
    ]);
  });
});

test('capacity is shared by all accounts, plans are not', async () => {
  await withEmulator(async ({ sm, other }) => {
    const start = P0 + 2 * DAY;
    const window = { InstanceType: P5, StartTimeAfter: at(start), EndTimeBefore: at(start + DAY) };
    await buyWindow(sm, 'shared-a', start, { count: 2, zone: 'us-west-2a' });
    // The other account sees the same physical region: us-west-2a is gone for it as well.
    assert.deepEqual(slots(await search(other, window)), [slot('us-west-2b', start, 24)]);
    await buyWindow(other, 'shared-b', start, { zone: 'us-west-2b' });
    assert.deepEqual(await search(sm, window), [], 'the other account bought the last zone');

    // Each account sees only its own plan.
    assert.deepEqual((await listPlans(sm)).TrainingPlanSummaries.map((p) => p.TrainingPlanName), ['shared-a']);
    assert.deepEqual((await listPlans(other)).TrainingPlanSummaries.map((p) => p.TrainingPlanName), ['shared-b']);
    await expectError(other, describePlan(other, 'shared-a'), 'ResourceNotFound');
    const mine = await describePlan(sm, 'shared-a');
    const rcArn = mine.ReservedCapacitySummaries[0].ReservedCapacityArn;
    await expectError(other, other.send(new DescribeReservedCapacityCommand({ ReservedCapacityArn: rcArn })),
      'ResourceNotFound');
    const theirs = await describePlan(other, 'shared-b');
    assert.equal(theirs.TrainingPlanArn, planArn('shared-b', { account: OTHER_ACCOUNT }));
    // The same name is free in the other account.
    const again = await buyWindow(other, 'shared-a', start + DAY);
    assert.equal(again.arn, planArn('shared-a', { account: OTHER_ACCOUNT }));
  });
});

// ------------------------------------------------------------------------------------ errors

test('CreateTrainingPlan with an unknown offering is ResourceNotFound', async () => {
  await withEmulator(async ({ sm }) => {
    await expectError(sm, sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'no-offering', TrainingPlanOfferingId: `tpo-${'0'.repeat(64)}`,
    })), 'ResourceNotFound');
    await expectError(sm, describePlan(sm, 'no-offering'), 'ResourceNotFound');
  });
});

test('CreateTrainingPlan with a name in use (any case) is ResourceInUse and sells nothing', async () => {
  await withEmulator(async ({ sm }) => {
    const start = P0 + DAY;
    const window = { InstanceType: P5, StartTimeAfter: at(start), EndTimeBefore: at(start + DAY) };
    const { arn, offering } = await buyWindow(sm, 'Dup-Plan', start, { zone: 'us-west-2b' });
    // Zone b is sold out now; a fresh offering in zone a is left.
    const [left] = await search(sm, window);
    assert.equal(slots([left])[0], slot('us-west-2a', start, 24));
    for (const name of ['Dup-Plan', 'dup-plan', 'DUP-PLAN']) {
      await expectError(sm, sm.send(new CreateTrainingPlanCommand({
        TrainingPlanName: name, TrainingPlanOfferingId: left.TrainingPlanOfferingId,
      })), 'ResourceInUse');
    }
    // Nothing was sold: both us-west-2a instances are still free, and the first plan is untouched.
    assert.deepEqual(slots(await search(sm, { ...window, InstanceCount: 2 })), [slot('us-west-2a', start, 24)]);
    const d = await describePlan(sm, 'dup-plan');
    assert.equal(d.TrainingPlanArn, arn);
    assert.equal(d.TrainingPlanName, 'Dup-Plan');
    assert.equal(d.ReservedCapacitySummaries[0].AvailabilityZone, 'us-west-2b');
    assert.equal(offering.ReservedCapacityOfferings[0].AvailabilityZone, 'us-west-2b');
    assert.equal((await listPlans(sm)).TrainingPlanSummaries.length, 1);
  });
});

test('buying one offering more often than the zone holds is ResourceLimitExceeded and sells nothing', async () => {
  await withEmulator(async ({ sm }) => {
    const start = P0 + 4 * DAY;
    const [offering] = await search(sm, { InstanceType: P5, StartTimeAfter: at(start), EndTimeBefore: at(start + DAY) });
    assert.equal(slots([offering])[0], slot('us-west-2a', start, 24));
    // us-west-2a holds 2: the same offering can be bought twice, not three times.
    for (const name of ['rle-1', 'rle-2']) {
      await sm.send(new CreateTrainingPlanCommand({ TrainingPlanName: name, TrainingPlanOfferingId: offering.TrainingPlanOfferingId }));
    }
    await expectError(sm, sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'rle-3', TrainingPlanOfferingId: offering.TrainingPlanOfferingId,
    })), 'ResourceLimitExceeded');
    await expectError(sm, describePlan(sm, 'rle-3'), 'ResourceNotFound');
    assert.deepEqual((await listPlans(sm, { SortBy: 'TrainingPlanName' })).TrainingPlanSummaries.map((p) => p.TrainingPlanName),
      ['rle-1', 'rle-2']);
    // us-west-2b was not touched by the failed purchase.
    assert.deepEqual(slots(await search(sm, { InstanceType: P5, StartTimeAfter: at(start), EndTimeBefore: at(start + DAY) })),
      [slot('us-west-2b', start, 24)]);
  });
});

test('an offering whose capacity another purchase took is ResourceLimitExceeded', async () => {
  await withEmulator(async ({ sm, other }) => {
    const start = P0 + 6 * DAY;
    const window = { InstanceType: P5, InstanceCount: 2, StartTimeAfter: at(start), EndTimeBefore: at(start + DAY) };
    const [mine] = await search(sm, window);
    const [theirs] = await search(other, window);
    assert.equal(slots([mine])[0], slot('us-west-2a', start, 24));
    await other.send(new CreateTrainingPlanCommand({ TrainingPlanName: 'first', TrainingPlanOfferingId: theirs.TrainingPlanOfferingId }));
    await expectError(sm, sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'second', TrainingPlanOfferingId: mine.TrainingPlanOfferingId,
    })), 'ResourceLimitExceeded');
    assert.deepEqual((await listPlans(sm)).TrainingPlanSummaries, []);
  });
});

test('DescribeTrainingPlan and DescribeReservedCapacity of missing resources are ResourceNotFound', async () => {
  await withEmulator(async ({ sm }) => {
    await expectError(sm, describePlan(sm, 'never-bought'), 'ResourceNotFound');
    await expectError(sm, sm.send(new DescribeReservedCapacityCommand({
      ReservedCapacityArn: 'arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity/rc-0123456789abcdef',
    })), 'ResourceNotFound');
  });
});

test('offerings can be bought for 30 minutes of virtual time', async () => {
  await withEmulator(async ({ url, sm }) => {
    const start = P0 + 10 * DAY;
    const offerings = await search(sm, { InstanceType: P5, StartTimeAfter: at(start), EndTimeBefore: at(start + DAY) });
    assert.equal(offerings.length, 2);
    const [a, b] = offerings;
    await advance(url, 29 * 60);
    const ok = await sm.send(new CreateTrainingPlanCommand({ TrainingPlanName: 'in-time', TrainingPlanOfferingId: a.TrainingPlanOfferingId }));
    assert.equal(ok.TrainingPlanArn, planArn('in-time'));
    await advance(url, 2 * 60); // 31 minutes after the search
    await expectError(sm, sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'too-late', TrainingPlanOfferingId: b.TrainingPlanOfferingId,
    })), 'ResourceNotFound');
    await expectError(sm, sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'too-late', TrainingPlanOfferingId: a.TrainingPlanOfferingId,
    })), 'ResourceNotFound');
    await expectError(sm, describePlan(sm, 'too-late'), 'ResourceNotFound');
    // Nothing was sold by the late attempts: us-west-2b is still free for that day.
    const again = await search(sm, { InstanceType: P5, StartTimeAfter: at(start), EndTimeBefore: at(start + DAY) });
    assert.deepEqual(slots(again), [slot('us-west-2a', start, 24), slot('us-west-2b', start, 24)]);
    // Searching again gives the same ids, and they can be bought for another 30 minutes.
    assert.deepEqual(again.map((o) => o.TrainingPlanOfferingId), [a.TrainingPlanOfferingId, b.TrainingPlanOfferingId]);
    await advance(url, 29 * 60);
    const late = await sm.send(new CreateTrainingPlanCommand({ TrainingPlanName: 'too-late', TrainingPlanOfferingId: b.TrainingPlanOfferingId }));
    assert.equal(late.TrainingPlanArn, planArn('too-late'));
  });
});

// ------------------------------------------------------------------------------------ status

test('status follows the clock: Pending, Scheduled once paid, Active at StartTime, Expired at EndTime', async () => {
  await withEmulator(async ({ url, sm }) => {
    const start = Date.parse('2027-01-22T11:30:00Z');
    const end = start + 48 * HOUR;
    await buyWindow(sm, 'lifecycle', start, { hours: 48 });
    const rcArn = (await describePlan(sm, 'lifecycle')).ReservedCapacitySummaries[0].ReservedCapacityArn;

    const expectStatus = async (status) => {
      const d = await describePlan(sm, 'lifecycle');
      assert.equal(d.Status, status, 'DescribeTrainingPlan');
      assert.equal(d.ReservedCapacitySummaries[0].Status, status, 'ReservedCapacitySummaries');
      const r = await sm.send(new DescribeReservedCapacityCommand({ ReservedCapacityArn: rcArn }));
      assert.equal(r.Status, status, 'DescribeReservedCapacity');
      const listed = await listPlans(sm);
      assert.equal(listed.TrainingPlanSummaries[0].Status, status, 'ListTrainingPlans');
      const filtered = await listPlans(sm, { Filters: [{ Name: 'Status', Value: status }] });
      assert.deepEqual(filtered.TrainingPlanSummaries.map((p) => p.TrainingPlanName), ['lifecycle']);
      for (const otherStatus of ['Pending', 'Scheduled', 'Active', 'Expired'].filter((s) => s !== status)) {
        const none = await listPlans(sm, { Filters: [{ Name: 'Status', Value: otherStatus }] });
        assert.deepEqual(none.TrainingPlanSummaries, [], `filter ${otherStatus}`);
      }
    };
    await expectStatus('Pending');
    await completePayment(url);
    await expectStatus('Scheduled');
    await clockTo(url, start - 1000);
    await expectStatus('Scheduled');
    await clockTo(url, start);
    await expectStatus('Active');
    await clockTo(url, end - 1000);
    await expectStatus('Active');
    await clockTo(url, end);
    await expectStatus('Expired');
    await advance(url, 30 * 86400);
    await expectStatus('Expired');
  });
});

// ------------------------------------------------------------------------------------ listing

// Five plans in us-east-1, one day each, bought in an order unlike both their names and starts.
const LISTED = [
  { name: 'plan-c', day: 1 },
  { name: 'plan-a', day: 2 },
  { name: 'plan-e', day: 3 },
  { name: 'plan-b', day: 4 },
  { name: 'plan-d', day: 5 },
];
const BUY_ORDER = ['plan-b', 'plan-e', 'plan-c', 'plan-d', 'plan-a'];
const BY_START = LISTED.map((p) => p.name);

async function buyListed(east) {
  for (const name of BUY_ORDER) {
    const { day } = LISTED.find((p) => p.name === name);
    await buyWindow(east, name, P0 + day * DAY, { type: TRN1 });
  }
}

async function collect(client, input, pageSize) {
  const pages = [];
  for await (const page of paginateListTrainingPlans({ client, pageSize }, input)) pages.push(page);
  return pages;
}
const names = (pages) => pages.flatMap((p) => p.TrainingPlanSummaries.map((s) => s.TrainingPlanName));

test('paginateListTrainingPlans walks the plans by StartTime (the default), both ways, and by name', async () => {
  await withEmulator(async ({ east }) => {
    await buyListed(east);
    const asc = await collect(east, {}, 2);
    assert.deepEqual(asc.map((p) => p.TrainingPlanSummaries.length), [2, 2, 1]);
    assert.deepEqual(names(asc), BY_START);
    assert.equal(typeof asc[0].NextToken, 'string');
    assert.equal(typeof asc[1].NextToken, 'string');
    assert.notEqual(asc[0].NextToken, asc[1].NextToken);
    assert.equal(asc[2].NextToken, undefined);
    for (const s of asc.flatMap((p) => p.TrainingPlanSummaries)) {
      const { day } = LISTED.find((p) => p.name === s.TrainingPlanName);
      assert.ok(s.StartTime instanceof Date && s.EndTime instanceof Date);
      assert.equal(s.StartTime.getTime(), P0 + day * DAY, s.TrainingPlanName);
      assert.equal(s.EndTime.getTime(), P0 + (day + 1) * DAY, s.TrainingPlanName);
      assert.equal(s.TrainingPlanArn, planArn(s.TrainingPlanName, { region: 'us-east-1' }));
      assert.equal(s.UpfrontFee, '296.28');
    }

    assert.deepEqual(names(await collect(east, { SortBy: 'StartTime', SortOrder: 'Ascending' }, 2)), BY_START);
    const desc = await collect(east, { SortBy: 'StartTime', SortOrder: 'Descending' }, 2);
    assert.deepEqual(desc.map((p) => p.TrainingPlanSummaries.length), [2, 2, 1]);
    assert.deepEqual(names(desc), [...BY_START].reverse());
    assert.deepEqual(names(await collect(east, { SortBy: 'TrainingPlanName' }, 3)),
      ['plan-a', 'plan-b', 'plan-c', 'plan-d', 'plan-e']);
    assert.deepEqual(names(await collect(east, { SortBy: 'TrainingPlanName', SortOrder: 'Descending' }, 1)),
      ['plan-e', 'plan-d', 'plan-c', 'plan-b', 'plan-a']);

    // One page by hand: MaxResults caps it and NextToken resumes it.
    const first = await listPlans(east, { MaxResults: 3 });
    assert.deepEqual(first.TrainingPlanSummaries.map((s) => s.TrainingPlanName), BY_START.slice(0, 3));
    const rest = await listPlans(east, { MaxResults: 3, NextToken: first.NextToken });
    assert.deepEqual(rest.TrainingPlanSummaries.map((s) => s.TrainingPlanName), BY_START.slice(3));
    assert.equal(rest.NextToken, undefined);
  });
});

test('ListTrainingPlans StartTimeAfter and StartTimeBefore are exclusive bounds on the start', async () => {
  await withEmulator(async ({ east }) => {
    await buyListed(east);
    const list = async (input) => (await listPlans(east, input)).TrainingPlanSummaries.map((s) => s.TrainingPlanName);
    assert.deepEqual(await list({ StartTimeAfter: at(P0 + 2 * DAY) }), ['plan-e', 'plan-b', 'plan-d']);
    assert.deepEqual(await list({ StartTimeAfter: at(P0 + 2 * DAY - 1000) }), ['plan-a', 'plan-e', 'plan-b', 'plan-d']);
    assert.deepEqual(await list({ StartTimeBefore: at(P0 + 4 * DAY) }), ['plan-c', 'plan-a', 'plan-e']);
    assert.deepEqual(await list({ StartTimeBefore: at(P0 + 4 * DAY + 1000) }), ['plan-c', 'plan-a', 'plan-e', 'plan-b']);
    assert.deepEqual(await list({ StartTimeAfter: at(P0 + 2 * DAY), StartTimeBefore: at(P0 + 4 * DAY) }), ['plan-e']);
    assert.deepEqual(await list({ StartTimeAfter: at(P0 + 5 * DAY) }), []);
  });
});

test('ListTrainingPlans Status filter and SortBy Status follow the clock', async () => {
  await withEmulator(async ({ url, east }) => {
    await buyListed(east);
    const list = async (input) => (await listPlans(east, input)).TrainingPlanSummaries.map((s) => s.TrainingPlanName);
    const withStatus = (status) => ({ Filters: [{ Name: 'Status', Value: status }] });
    // Just bought, every plan is Pending until its payment completes.
    assert.deepEqual(await list(withStatus('Pending')), BY_START);
    assert.deepEqual(await list(withStatus('Scheduled')), []);
    await completePayment(url);
    assert.deepEqual(await list(withStatus('Pending')), []);
    assert.deepEqual(await list(withStatus('Scheduled')), BY_START);
    assert.deepEqual(await list(withStatus('Active')), []);
    assert.deepEqual(await list(withStatus('Expired')), []);

    // Day 3, 12:30: plan-c (day 1) and plan-a (day 2) are over, plan-e (day 3) runs.
    await clockTo(url, P0 + 3 * DAY + HOUR);
    assert.deepEqual(await list(withStatus('Active')), ['plan-e']);
    assert.deepEqual(await list(withStatus('Expired')), ['plan-c', 'plan-a']);
    assert.deepEqual(await list(withStatus('Scheduled')), ['plan-b', 'plan-d']);
    const paged = await collect(east, withStatus('Scheduled'), 1);
    assert.deepEqual(paged.map((p) => p.TrainingPlanSummaries.map((s) => s.TrainingPlanName)), [['plan-b'], ['plan-d']]);
    assert.equal(paged[1].NextToken, undefined);
    assert.deepEqual(await list({ ...withStatus('Expired'), SortOrder: 'Descending' }), ['plan-a', 'plan-c']);
    assert.deepEqual(await list({ ...withStatus('Scheduled'), StartTimeAfter: at(P0 + 4 * DAY) }), ['plan-d']);

    const byStatus = await listPlans(east, { SortBy: 'Status' });
    assert.deepEqual(byStatus.TrainingPlanSummaries.map((s) => s.Status),
      ['Active', 'Expired', 'Expired', 'Scheduled', 'Scheduled']);
    const byStatusDesc = await listPlans(east, { SortBy: 'Status', SortOrder: 'Descending' });
    assert.deepEqual(byStatusDesc.TrainingPlanSummaries.map((s) => s.Status),
      ['Scheduled', 'Scheduled', 'Expired', 'Expired', 'Active']);
    const pagedByStatus = await collect(east, { SortBy: 'Status' }, 2);
    assert.deepEqual(pagedByStatus.map((p) => p.TrainingPlanSummaries.length), [2, 2, 1]);
    assert.deepEqual(pagedByStatus.flatMap((p) => p.TrainingPlanSummaries.map((s) => s.Status)),
      ['Active', 'Expired', 'Expired', 'Scheduled', 'Scheduled']);
    assert.deepEqual([...names(pagedByStatus)].sort(), [...BY_START].sort(), 'every plan exactly once');
  });
});

test('ListTrainingPlans returns 10 plans per page by default; other regions and accounts see none', async () => {
  await withEmulator(async ({ url, east, sm }) => {
    const all = [];
    for (let day = 1; day <= 12; day += 1) {
      const name = `many-${String(day).padStart(2, '0')}`;
      await buyWindow(east, name, P0 + day * DAY, { type: TRN1 });
      all.push(name);
    }
    const first = await listPlans(east);
    assert.deepEqual(first.TrainingPlanSummaries.map((s) => s.TrainingPlanName), all.slice(0, 10));
    assert.equal(typeof first.NextToken, 'string');
    const second = await listPlans(east, { NextToken: first.NextToken });
    assert.deepEqual(second.TrainingPlanSummaries.map((s) => s.TrainingPlanName), all.slice(10));
    assert.equal(second.NextToken, undefined);

    assert.deepEqual((await listPlans(sm)).TrainingPlanSummaries, [], 'us-west-2 of the same account');
    const otherEast = sagemaker(url, { accessKeyId: OTHER_ACCOUNT, region: 'us-east-1' });
    assert.deepEqual((await listPlans(otherEast)).TrainingPlanSummaries, [], 'another account in us-east-1');
  });
});
