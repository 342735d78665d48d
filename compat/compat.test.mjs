// Official client compatibility suite: drives payport through the official
// I'mport Node client, iamport-rest-client-nodejs (pinned in package.json),
// and asserts what the client parses out of payport's answers.
//
// Run by compat/run.sh, which starts payport and sets:
//   PAYPORT_URL  base URL of a running payport (e.g. http://127.0.0.1:8080)
//   IMP_KEY, IMP_SECRET  credentials of a merchant with schedule_list_paged on
//
// How the client reports results (node_modules/iamport-rest-client-nodejs/dist/request/Base.js):
//   - `await X.request(iamport)` resolves to the axios response whose `data` is
//     replaced by an Item / List / Collection: `{code, message, response}` where
//     `response` is the parsed record (timestamps become Date, 0 stays 0).
//   - envelope `code` != 0 with HTTP 2xx rejects with `{response: {data: <raw envelope>}}`
//     (no `status`); a non-2xx HTTP answer rejects with axios' error
//     (`error.response.status`, `error.response.data`).
//   - multi lookup answering 207 adds `data.failed` (the imp_uids not found).
//
// The base URL: the Iamport constructor takes `baseUrl` (dist/Iamport.js:37,
// default https://api.iamport.kr from dist/constants.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import client from 'iamport-rest-client-nodejs';
import IamportIteratorModule from 'iamport-rest-client-nodejs/dist/IamportIterator.js';

const { Iamport, Request, Enum } = client;
const { Authenticate, Payments, Subscribe, Vbanks, Customers } = Request;
const { StatusEnum, SortingEnum, ScheduledStatusEnum } = Enum;
const IamportIterator = IamportIteratorModule.default;

const PAYPORT_URL = process.env.PAYPORT_URL;
const IMP_KEY = process.env.IMP_KEY;
const IMP_SECRET = process.env.IMP_SECRET;
if (!PAYPORT_URL || !IMP_KEY || !IMP_SECRET) {
  throw new Error('set PAYPORT_URL, IMP_KEY and IMP_SECRET (compat/run.sh does)');
}

const newClient = () => new Iamport({ apiKey: IMP_KEY, apiSecret: IMP_SECRET, baseUrl: PAYPORT_URL });
let iamport = newClient();

// Unique order numbers per run, so the suite also works against a used database.
const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const uid = (name) => `compat-${RUN}-${name}`;

const CARD_OK = '4242-4242-4242-4242';
const CARD_DECLINED = '4000-0000-0000-0002';
const MASKED_OK = '424242******4242';

/** Awaits a client call that must fail; returns what the client rejected with. */
async function rejection(promise) {
  try {
    const res = await promise;
    assert.fail(`expected the client call to reject, it resolved with ${JSON.stringify(res && res.data)}`);
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    return err;
  }
}

/** Envelope refusal (HTTP 200, code != 0) as the client surfaces it. */
function assertRefused(err, code, message) {
  assert.ok(err && err.response && err.response.data, `not a client refusal: ${err && err.stack || err}`);
  assert.equal(err.response.status, undefined, 'an envelope refusal carries no HTTP status in the client');
  assert.equal(err.response.data.code, code);
  if (message !== undefined) assert.equal(err.response.data.message, message);
}

/** Non-2xx HTTP answer as axios (inside the client) surfaces it. */
function assertHttpError(err, status, code, message) {
  assert.ok(err && err.response, `not an HTTP error: ${err && err.stack || err}`);
  assert.equal(err.response.status, status);
  assert.equal(err.response.data.code, code);
  if (message !== undefined) assert.equal(err.response.data.message, message);
}

/** payport's own sandbox API (no client call exists), with the client's token. */
async function sandbox(method, path, body) {
  const headers = await iamport.getHeaders();
  const res = await fetch(PAYPORT_URL + path, {
    method,
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  assert.equal(res.status, 200, `${method} ${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
  assert.equal(json.code, 0, `${method} ${path}: ${JSON.stringify(json)}`);
  return json.response;
}

const sec = (d) => (d instanceof Date ? Math.floor(d.getTime() / 1000) : d);

// Shared state, filled in order (top-level tests run sequentially).
const state = {};
function need(key) {
  assert.ok(state[key] !== undefined, `an earlier step did not produce ${key}`);
  return state[key];
}

// ---------------------------------------------------------------------------
// Token

test('token: Authenticate.getToken returns access_token, expired_at, now', async () => {
  const res = await Authenticate.getToken({ imp_key: IMP_KEY, imp_secret: IMP_SECRET }).request(iamport);
  assert.equal(res.status, 200);
  assert.equal(res.data.code, 0);
  const { access_token, expired_at, now } = res.data.response;
  assert.equal(typeof access_token, 'string');
  assert.ok(access_token.length > 0);
  assert.ok(expired_at instanceof Date && now instanceof Date, 'timestamps parse as Date');
  assert.ok(expired_at > now, 'expired_at after now');
  state.token = access_token;
  state.clockNow = sec(now); // the merchant's clock, used for schedule_at
});

test('token: the client obtains and reuses the token by itself (Iamport.getHeaders)', async () => {
  const headers = await iamport.getHeaders();
  // payport keeps one current token per key pair and hands the same one out again before expiry.
  assert.equal(headers.Authorization, `Bearer ${need('token')}`);
  assert.match(headers['User-Agent'], /^iamport-rest-client-nodejs\//);
  assert.ok(iamport.isTokenValid(), 'the client considers the token valid (expired_at in its future)');
});

test('token: wrong secret is a 401 the client rejects with', async () => {
  const err = await rejection(
    Authenticate.getToken({ imp_key: IMP_KEY, imp_secret: 'wrong-secret' }).request(iamport),
  );
  assertHttpError(err, 401, -1, 'imp_key, imp_secret 인증에 실패하였습니다.');
});

// ---------------------------------------------------------------------------
// One-time payment

test('onetime: approved card, billing key kept', async () => {
  state.customerA = uid('cust-a');
  state.orderA = uid('order-a');
  const res = await Subscribe.onetime({
    merchant_uid: state.orderA,
    amount: 30000,
    card_number: CARD_OK,
    expiry: '2030-12',
    birth: '900101',
    customer_uid: state.customerA,
    name: 'Annual plan',
    buyer_name: '홍길동',
    buyer_email: 'hong@example.com',
    buyer_tel: '010-1234-5678',
  }).request(iamport);
  assert.equal(res.data.code, 0);
  const p = res.data.response;
  assert.match(p.imp_uid, /^imp_\d{12}$/);
  assert.equal(p.merchant_uid, state.orderA);
  assert.equal(p.status, 'paid');
  assert.equal(p.amount, 30000);
  assert.equal(p.cancel_amount, 0);
  assert.equal(p.currency, 'KRW');
  assert.equal(p.pay_method, 'card');
  assert.equal(p.channel, 'api');
  assert.equal(p.card_number, MASKED_OK);
  assert.equal(p.card_name, '신한카드');
  assert.equal(p.card_code, '366');
  assert.equal(p.name, 'Annual plan');
  assert.equal(p.buyer_name, '홍길동');
  assert.equal(p.customer_uid, state.customerA);
  assert.equal(p.customer_uid_usage, 'payment');
  assert.ok(p.paid_at instanceof Date, 'paid_at is a Date');
  assert.equal(p.failed_at, 0);
  assert.equal(p.cancelled_at, 0);
  assert.deepEqual(p.cancel_history, []);
  assert.deepEqual(p.cancel_receipt_urls, []);
  assert.equal(typeof p.receipt_url, 'string');
  state.impA = p.imp_uid;
});

test('onetime: declined card resolves with status failed', async () => {
  state.orderDeclined = uid('order-declined');
  const res = await Subscribe.onetime({
    merchant_uid: state.orderDeclined,
    amount: 1000,
    card_number: CARD_DECLINED,
    expiry: '2030-12',
    birth: '900101',
    name: 'Declined',
  }).request(iamport);
  const p = res.data.response;
  assert.equal(res.data.code, 0);
  assert.equal(p.status, 'failed');
  assert.equal(p.fail_reason, '[카드사 거절] 승인이 거절되었습니다.');
  assert.ok(p.failed_at instanceof Date);
  assert.equal(p.paid_at, 0);
  state.impDeclined = p.imp_uid;
});

test('onetime: invalid card number is a code -1 refusal', async () => {
  const err = await rejection(Subscribe.onetime({
    merchant_uid: uid('order-badcard'),
    amount: 1000,
    card_number: '1234-5678-9012-3456',
    expiry: '2030-12',
    birth: '900101',
    name: 'Bad card',
  }).request(iamport));
  assertRefused(err, -1, '카드정보 인증에 실패하였습니다. [유효하지않은 카드번호]');
});

test('onetime: a used merchant_uid is a code 1 refusal', async () => {
  const err = await rejection(Subscribe.onetime({
    merchant_uid: need('orderA'),
    amount: 1000,
    card_number: CARD_OK,
    expiry: '2030-12',
    birth: '900101',
    name: 'Duplicate',
  }).request(iamport));
  assertRefused(err, 1, '이미 사용된 merchant_uid입니다.');
});

// ---------------------------------------------------------------------------
// Lookups

test('lookup: Payments.getByImpUid', async () => {
  const res = await Payments.getByImpUid({ imp_uid: need('impA') }).request(iamport);
  assert.equal(res.status, 200);
  const p = res.data.response;
  assert.equal(p.imp_uid, state.impA);
  assert.equal(p.merchant_uid, state.orderA);
  assert.equal(p.status, 'paid');
  assert.equal(p.amount, 30000);
  assert.equal(p.card_number, MASKED_OK);
});

test('lookup: Payments.getByImpUid of an unknown imp_uid is a 404', async () => {
  const err = await rejection(Payments.getByImpUid({ imp_uid: 'imp_000000000000' }).request(iamport));
  assertHttpError(err, 404, 1, '존재하지 않는 결제정보입니다.');
});

test('lookup: Payments.getByImpUids (several), in request order', async () => {
  const res = await Payments.getByImpUids({ imp_uid: [need('impA'), need('impDeclined')] }).request(iamport);
  assert.equal(res.status, 200);
  assert.equal(res.data.code, 0);
  assert.ok(Array.isArray(res.data.response));
  assert.deepEqual(res.data.response.map((p) => [p.imp_uid, p.status]), [
    [state.impA, 'paid'],
    [state.impDeclined, 'failed'],
  ]);
  assert.equal(res.data.failed, undefined, 'no failed list on a 200');
});

test('lookup: Payments.getByImpUids with one unknown: 207 and the client lists it in failed', async () => {
  const unknown = 'imp_000000000001';
  const res = await Payments.getByImpUids({ imp_uid: [need('impA'), unknown] }).request(iamport);
  assert.equal(res.status, 207);
  assert.deepEqual(res.data.response.map((p) => p.imp_uid), [state.impA]);
  assert.deepEqual(res.data.failed, [unknown]);
});

test('lookup: Payments.getByImpUids with none found is a 404', async () => {
  const err = await rejection(Payments.getByImpUids({ imp_uid: ['imp_000000000002'] }).request(iamport));
  assertHttpError(err, 404, 1, '존재하지 않는 결제정보입니다.');
});

test('lookup: Payments.getByMerchantUid with status and sorting', async () => {
  const res = await Payments.getByMerchantUid({
    merchant_uid: need('orderA'),
    status: StatusEnum.PAID,
    sorting: SortingEnum.PAID_DESC,
  }).request(iamport);
  const p = res.data.response;
  assert.equal(p.imp_uid, state.impA);
  assert.equal(p.status, 'paid');
});

test('lookup: Payments.getByMerchantUid with an empty status (any status)', async () => {
  // The client always appends "/{status}"; an empty status yields /payments/find/{merchant_uid}/
  const res = await Payments.getByMerchantUid({ merchant_uid: need('orderDeclined'), status: '' }).request(iamport);
  assert.equal(res.data.response.imp_uid, state.impDeclined);
  assert.equal(res.data.response.status, 'failed');
});

test('lookup: Payments.getByMerchantUid in a status it does not have is a 404', async () => {
  const err = await rejection(Payments.getByMerchantUid({
    merchant_uid: need('orderA'),
    status: StatusEnum.CANCELLED,
  }).request(iamport));
  assertHttpError(err, 404, 1, '존재하지 않는 결제정보입니다.');
});

// ---------------------------------------------------------------------------
// Refunds

test('cancel: partial refund with checksum', async () => {
  const res = await Payments.cancel({
    merchant_uid: need('orderA'),
    amount: 10000,
    checksum: 30000,
    reason: 'partial refund',
  }).request(iamport);
  assert.equal(res.data.code, 0);
  const p = res.data.response;
  assert.equal(p.imp_uid, state.impA);
  assert.equal(p.status, 'paid');
  assert.equal(p.amount, 30000);
  assert.equal(p.cancel_amount, 10000);
  assert.equal(p.cancel_history.length, 1);
  assert.equal(p.cancel_history[0].amount, 10000);
  assert.equal(p.cancel_history[0].reason, 'partial refund');
  assert.equal(typeof p.cancel_history[0].cancelled_at, 'number', 'cancel_history stays raw (the client does not convert it)');
  assert.equal(p.cancel_receipt_urls.length, 1);
  assert.equal(p.cancelled_at, 0, 'not fully cancelled');
});

test('cancel: a stale checksum is refused as the client surfaces it', async () => {
  const err = await rejection(Payments.cancel({
    merchant_uid: need('orderA'),
    amount: 10000,
    checksum: 30000,
    reason: 'partial refund',
  }).request(iamport));
  assertRefused(err, 1, 'checksum 불일치: 취소가능금액은 20000입니다.');
  const res = await Payments.getByImpUid({ imp_uid: state.impA }).request(iamport);
  assert.equal(res.data.response.cancel_amount, 10000, 'a refusal changes nothing');
});

test('again: charge the stored billing key', async () => {
  state.orderAgain = uid('order-again');
  const res = await Subscribe.again({
    customer_uid: need('customerA'),
    merchant_uid: state.orderAgain,
    amount: 12000,
    name: 'Annual plan',
  }).request(iamport);
  const p = res.data.response;
  assert.equal(p.status, 'paid');
  assert.equal(p.amount, 12000);
  assert.equal(p.merchant_uid, state.orderAgain);
  assert.equal(p.customer_uid, state.customerA);
  assert.equal(p.customer_uid_usage, 'payment');
  assert.equal(p.card_number, MASKED_OK);
  state.impAgain = p.imp_uid;
});

test('cancel: the rest by imp_uid with the right checksum', async () => {
  const res = await Payments.cancel({
    imp_uid: need('impA'),
    checksum: 20000,
    reason: 'full refund',
  }).request(iamport);
  const p = res.data.response;
  assert.equal(p.status, 'cancelled');
  assert.equal(p.cancel_amount, 30000);
  assert.equal(p.cancel_history.length, 2);
  assert.equal(p.cancel_history[1].amount, 20000);
  assert.ok(p.cancelled_at instanceof Date);
  assert.equal(p.cancel_reason, 'full refund');
});

test('cancel: a fully cancelled payment is refused', async () => {
  const err = await rejection(Payments.cancel({ imp_uid: need('impA'), reason: 'again' }).request(iamport));
  assertRefused(err, 1, '이미 전액취소된 주문입니다.');
});

// ---------------------------------------------------------------------------
// Virtual account and deposit

test('vbank: Vbanks.post issues a ready virtual account', async () => {
  state.orderVbank = uid('order-vbank');
  state.vbankDue = Math.floor(Date.now() / 1000) + 86400;
  const res = await Vbanks.post({
    merchant_uid: state.orderVbank,
    amount: 50000,
    vbank_code: '004',
    vbank_due: state.vbankDue,
    vbank_holder: '홍길동',
    name: 'Notebook',
    buyer_name: '홍길동',
  }).request(iamport);
  assert.equal(res.data.code, 0);
  const p = res.data.response;
  assert.match(p.imp_uid, /^imp_\d{12}$/);
  assert.equal(p.status, 'ready');
  assert.equal(p.pay_method, 'vbank');
  assert.equal(p.amount, 50000);
  assert.equal(p.vbank_code, '004');
  assert.equal(p.vbank_name, 'KB국민은행');
  assert.equal(typeof p.vbank_num, 'string');
  assert.ok(p.vbank_num.length > 0);
  assert.equal(p.vbank_holder, '홍길동');
  assert.ok(p.vbank_date instanceof Date);
  assert.equal(sec(p.vbank_date), state.vbankDue);
  assert.ok(p.vbank_issued_at instanceof Date);
  assert.equal(p.paid_at, 0);
  state.impVbank = p.imp_uid;
});

test('vbank: deposit (sandbox) then the client sees it paid', async () => {
  const deposited = await sandbox('POST', `/sandbox/vbanks/${need('impVbank')}/deposit`);
  assert.equal(deposited.status, 'paid');
  const res = await Payments.getByImpUid({ imp_uid: state.impVbank }).request(iamport);
  const p = res.data.response;
  assert.equal(p.status, 'paid');
  assert.ok(p.paid_at instanceof Date);
  assert.equal(p.vbank_name, 'KB국민은행');
});

test('vbank: unknown bank code is refused', async () => {
  const err = await rejection(Vbanks.post({
    merchant_uid: uid('order-vbank-bad'),
    amount: 1000,
    vbank_code: '999',
    vbank_due: Math.floor(Date.now() / 1000) + 86400,
    vbank_holder: '홍길동',
  }).request(iamport));
  assertRefused(err, 1, '지원하지 않는 은행코드입니다.');
});

// ---------------------------------------------------------------------------
// Schedules (the merchant has schedule_list_paged on)

const SCHEDULES = 22;

test('schedule: Subscribe.schedule for a new customer with card data', async () => {
  state.customerS = uid('cust-s');
  const base = need('clockNow');
  state.scheduleUids = [];
  const schedules = [];
  for (let i = 0; i < SCHEDULES; i++) {
    const merchant_uid = uid(`sub-${String(i).padStart(2, '0')}`);
    state.scheduleUids.push(merchant_uid);
    schedules.push({ merchant_uid, schedule_at: base + 3600 * (i + 1), amount: 9900, name: 'Monthly', buyer_name: '김철수' });
  }
  state.scheduleAt = schedules.map((s) => s.schedule_at);
  const res = await Subscribe.schedule({
    customer_uid: state.customerS,
    card_number: CARD_OK,
    expiry: '2030-12',
    birth: '900101',
    schedules,
  }).request(iamport);
  assert.equal(res.data.code, 0);
  const list = res.data.response;
  assert.equal(list.length, SCHEDULES);
  list.forEach((s, i) => {
    assert.equal(s.customer_uid, state.customerS);
    assert.equal(s.merchant_uid, state.scheduleUids[i]);
    assert.equal(s.amount, 9900);
    assert.equal(s.name, 'Monthly');
    assert.equal(s.schedule_status, ScheduledStatusEnum.SCHEDULED);
    assert.equal(s.payment_status, null);
    assert.equal(s.imp_uid, null);
    assert.ok(s.schedule_at instanceof Date);
    assert.equal(sec(s.schedule_at), state.scheduleAt[i]);
    assert.equal(s.executed_at, 0);
    assert.equal(s.revoked_at, 0);
  });
});

test('schedule: unknown customer without card data is refused', async () => {
  const err = await rejection(Subscribe.schedule({
    customer_uid: uid('cust-nobody'),
    schedules: [{ merchant_uid: uid('sub-nobody'), schedule_at: need('clockNow') + 3600, amount: 1000 }],
  }).request(iamport));
  assertRefused(err, 1, '등록된 고객정보가 없습니다.');
});

test('schedule: Subscribe.getScheduled (one schedule)', async () => {
  const res = await Subscribe.getScheduled({ merchant_uid: need('scheduleUids')[0] }).request(iamport);
  const s = res.data.response;
  assert.equal(s.merchant_uid, state.scheduleUids[0]);
  assert.equal(s.customer_uid, state.customerS);
  assert.equal(s.schedule_status, 'scheduled');
  assert.equal(sec(s.schedule_at), state.scheduleAt[0]);
});

function listWindow() {
  const from = need('clockNow');
  return { from, to: from + 60 * 86400 };
}

test('schedule: Subscribe.getScheduleds pages {total, previous, next, list}, newest first', async () => {
  const req = Subscribe.getScheduleds({ customer_uid: need('customerS'), page: 1, ...listWindow() });
  const res = await req.request(iamport);
  assert.equal(res.data.code, 0);
  const page1 = res.data.response;
  assert.deepEqual(Object.keys(page1).sort(), ['list', 'next', 'previous', 'total']);
  assert.equal(page1.total, SCHEDULES);
  assert.equal(page1.previous, 0);
  assert.equal(page1.next, 2);
  assert.equal(page1.list.length, 20);
  const newestFirst = [...state.scheduleUids].reverse();
  assert.deepEqual(page1.list.map((s) => s.merchant_uid), newestFirst.slice(0, 20));
  assert.ok(page1.list[0].schedule_at instanceof Date);

  // The client's own paging: IamportIterator follows `next` until it is 0.
  const it = new IamportIterator(req);
  assert.equal(it.hasNext(), true);
  const res2 = await it.next(iamport);
  const page2 = res2.data.response;
  assert.equal(page2.total, SCHEDULES);
  assert.equal(page2.previous, 1);
  assert.equal(page2.next, 0);
  assert.deepEqual(page2.list.map((s) => s.merchant_uid), newestFirst.slice(20));
  assert.equal(it.hasNext(), false);
});

test('schedule: Customers.getScheduleds (alias path) with a status filter', async () => {
  const res = await Customers.getScheduleds({
    customer_uid: need('customerS'),
    ...listWindow(),
    'schedule-status': ScheduledStatusEnum.SCHEDULED,
  }).request(iamport);
  const page = res.data.response;
  assert.equal(page.total, SCHEDULES);
  assert.equal(page.list.length, 20);
  assert.ok(page.list.every((s) => s.schedule_status === 'scheduled'));
});

test('schedule: getScheduleds for an unknown customer is an empty page', async () => {
  const res = await Subscribe.getScheduleds({ customer_uid: uid('cust-nobody'), ...listWindow() }).request(iamport);
  assert.deepEqual(res.data.response, { total: 0, previous: 0, next: 0, list: [] });
});

test('unschedule: Subscribe.unschedule by customer_uid and merchant_uid array', async () => {
  const target = need('scheduleUids')[SCHEDULES - 1];
  const res = await Subscribe.unschedule({ customer_uid: state.customerS, merchant_uid: [target] }).request(iamport);
  assert.equal(res.data.code, 0);
  const list = res.data.response;
  assert.equal(list.length, 1);
  assert.equal(list[0].merchant_uid, target);
  assert.equal(list[0].customer_uid, state.customerS);
  assert.equal(list[0].schedule_status, ScheduledStatusEnum.REVOKED);
  assert.ok(list[0].revoked_at instanceof Date);
  assert.equal(list[0].executed_at, 0);
});

test('unschedule: by a single merchant_uid string', async () => {
  const target = need('scheduleUids')[SCHEDULES - 2];
  const res = await Subscribe.unschedule({ customer_uid: state.customerS, merchant_uid: target }).request(iamport);
  assert.deepEqual(res.data.response.map((s) => [s.merchant_uid, s.schedule_status]), [[target, 'revoked']]);
});

test('unschedule: the revoked schedule as the client reads it', async () => {
  const target = need('scheduleUids')[SCHEDULES - 1];
  const one = await Subscribe.getScheduled({ merchant_uid: target }).request(iamport);
  assert.equal(one.data.response.schedule_status, 'revoked');
  assert.ok(one.data.response.revoked_at instanceof Date);

  const revoked = await Subscribe.getScheduleds({
    customer_uid: state.customerS,
    ...listWindow(),
    'schedule-status': ScheduledStatusEnum.REVOKED,
  }).request(iamport);
  assert.equal(revoked.data.response.total, 2);
  assert.deepEqual(revoked.data.response.list.map((s) => s.merchant_uid),
    [state.scheduleUids[SCHEDULES - 1], state.scheduleUids[SCHEDULES - 2]]);

  const scheduled = await Subscribe.getScheduleds({
    customer_uid: state.customerS,
    ...listWindow(),
    'schedule-status': ScheduledStatusEnum.SCHEDULED,
  }).request(iamport);
  assert.equal(scheduled.data.response.total, SCHEDULES - 2);
});

test('unschedule: nothing left to revoke is refused', async () => {
  const err = await rejection(Subscribe.unschedule({
    customer_uid: need('customerS'),
    merchant_uid: [state.scheduleUids[SCHEDULES - 1]],
  }).request(iamport));
  assertRefused(err, 1, '취소할 예약결제 기록이 존재하지 않습니다.');
});

// ---------------------------------------------------------------------------
// Billing keys

test('billing key: Customers.getBillingKey', async () => {
  const res = await Customers.getBillingKey({ customer_uid: need('customerA') }).request(iamport);
  assert.equal(res.data.code, 0);
  const c = res.data.response;
  assert.equal(c.customer_uid, state.customerA);
  assert.equal(c.card_number, MASKED_OK);
  assert.equal(c.card_name, '신한카드');
  assert.equal(c.card_code, '366');
  assert.equal(c.customer_name, '홍길동');
  assert.equal(c.customer_email, 'hong@example.com');
  assert.equal(c.customer_tel, '010-1234-5678');
  assert.ok(c.inserted instanceof Date);
  assert.ok(c.updated instanceof Date);
});

test('billing key: the key issued by Subscribe.schedule', async () => {
  const res = await Customers.getBillingKey({ customer_uid: need('customerS') }).request(iamport);
  assert.equal(res.data.response.customer_uid, state.customerS);
  assert.equal(res.data.response.card_number, MASKED_OK);
});

test('billing key: Customers.postBillingKey registers one from card data', async () => {
  const customer_uid = uid('cust-p');
  const res = await Customers.postBillingKey({
    customer_uid,
    card_number: '5555-5555-5555-4444',
    expiry: '2030-12',
    birth: '900101',
    customer_name: '이영희',
    customer_tel: '010-0000-0000',
    customer_email: 'lee@example.com',
    customer_addr: '서울',
    customer_postcode: '04524',
  }).request(iamport);
  const c = res.data.response;
  assert.equal(c.customer_uid, customer_uid);
  assert.equal(c.card_number, '555555******4444');
  assert.equal(c.card_name, 'KB국민카드');
  assert.equal(c.card_code, '381');
  assert.equal(c.customer_name, '이영희');
  assert.equal(c.customer_postcode, '04524');
  assert.ok(c.inserted instanceof Date);
});

test('billing key: Customers.deleteBillingKey, then it is gone', async () => {
  const res = await Customers.deleteBillingKey({ customer_uid: need('customerA') }).request(iamport);
  assert.equal(res.data.code, 0);
  assert.equal(res.data.response.customer_uid, state.customerA);
  assert.equal(res.data.response.card_number, MASKED_OK);

  const err = await rejection(Customers.getBillingKey({ customer_uid: state.customerA }).request(iamport));
  assertRefused(err, 1, `요청하신 customer_uid(${state.customerA})로 등록된 정보를 찾을 수 없습니다.`);

  const again = await rejection(Subscribe.again({
    customer_uid: state.customerA,
    merchant_uid: uid('order-after-delete'),
    amount: 1000,
    name: 'After delete',
  }).request(iamport));
  assertRefused(again, -1, '등록되지 않은 구매자입니다.');

  const twice = await rejection(Customers.deleteBillingKey({ customer_uid: state.customerA }).request(iamport));
  assertRefused(twice, 1, `요청하신 customer_uid(${state.customerA})로 등록된 정보를 찾을 수 없습니다.`);
});

// ---------------------------------------------------------------------------
// Schedule execution (last: advancing the merchant's test clock also expires
// its tokens, which this client cannot know; a fresh client fetches a new one)

test('schedule execution: the first schedule runs when the test clock reaches it', async () => {
  const target = need('scheduleUids')[0];
  const clock = await sandbox('POST', '/sandbox/clock/advance', { seconds: 3600 });
  assert.ok(clock.now >= state.scheduleAt[0]);
  assert.ok(clock.now < state.scheduleAt[1]);

  iamport = newClient(); // the old client's cached token expired on the advanced clock
  let s;
  for (let i = 0; i < 50; i++) {
    s = (await Subscribe.getScheduled({ merchant_uid: target }).request(iamport)).data.response;
    if (s.schedule_status === 'executed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(s.schedule_status, ScheduledStatusEnum.EXECUTED);
  assert.equal(s.payment_status, 'paid');
  assert.match(s.imp_uid, /^imp_\d{12}$/);
  assert.ok(s.executed_at instanceof Date);

  const p = (await Payments.getByImpUid({ imp_uid: s.imp_uid }).request(iamport)).data.response;
  assert.equal(p.merchant_uid, target);
  assert.equal(p.status, 'paid');
  assert.equal(p.amount, 9900);
  assert.equal(p.customer_uid, state.customerS);
  assert.equal(p.customer_uid_usage, 'payment.scheduled');

  const executed = await Subscribe.getScheduleds({
    customer_uid: state.customerS,
    ...listWindow(),
    'schedule-status': ScheduledStatusEnum.EXECUTED,
  }).request(iamport);
  assert.equal(executed.data.response.total, 1);
  assert.equal(executed.data.response.list[0].merchant_uid, target);
});
