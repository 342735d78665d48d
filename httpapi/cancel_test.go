package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/payport/payport/service"
)

// Helpers of the cancel, virtual-account and balance tests carry the prefix
// cx so that they cannot collide with helpers of other test files.

const cxReceiptPattern = `http://payport\.test/receipts/[0-9a-f]{32}`

// cxKST is Korea Standard Time, in which refund pg_tids carry their time.
var cxKST = time.FixedZone("KST", 9*60*60)

// cxRelogin drops the merchant's cached token and gets a fresh one: after
// the test clock moves past a token's expiry the old one answers 401.
func cxRelogin(m *merchant) {
	m.b.t.Helper()
	m.tok = ""
	m.token()
}

// cxReplace returns s with each old string of pairs replaced by its new
// one; an old string that does not occur is a bug of the test.
func cxReplace(t *testing.T, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("expectation has no %s", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// cxNum returns a JSON number field as int64.
func cxNum(t *testing.T, m map[string]any, field string) int64 {
	t.Helper()
	n, ok := m[field].(json.Number)
	if !ok {
		t.Fatalf("%s = %#v, want a number", field, m[field])
	}
	v, err := n.Int64()
	if err != nil {
		t.Fatalf("%s = %s: %v", field, n, err)
	}
	return v
}

// cxMask masks the random identifiers of any payment record: imp_uid;
// pg_tid (its pg_id followed by 18 digits); apply_num, receipt_url and
// vbank_num when present; and for each cancellation its pg_tid (pg_id, the
// cancel time as YYMMDDhhmmss in KST, 6 digits) and its receipt_url, which
// must also be the matching cancel_receipt_urls entry and differ from every
// other receipt URL of the payment.
func cxMask(t *testing.T, p map[string]any) map[string]any {
	t.Helper()
	pgID, _ := p["pg_id"].(string)
	mask(t, p, "imp_uid", `imp_[0-9]{12}`)
	if p["pg_tid"] != nil {
		mask(t, p, "pg_tid", regexp.QuoteMeta(pgID)+`[0-9]{18}`)
	}
	if p["apply_num"] != nil {
		mask(t, p, "apply_num", `[0-9]{8}`)
	}
	if p["vbank_num"] != nil {
		mask(t, p, "vbank_num", `[0-9]{14}`)
	}
	seen := map[any]bool{}
	if p["receipt_url"] != nil {
		seen[p["receipt_url"]] = true
		mask(t, p, "receipt_url", cxReceiptPattern)
	}
	hist, _ := p["cancel_history"].([]any)
	urls, _ := p["cancel_receipt_urls"].([]any)
	if len(urls) != len(hist) {
		t.Fatalf("cancel_receipt_urls %v do not match cancel_history %v", urls, hist)
	}
	for i, h := range hist {
		e := h.(map[string]any)
		at := cxNum(t, e, "cancelled_at")
		mask(t, e, "pg_tid", regexp.QuoteMeta(pgID)+time.Unix(at, 0).In(cxKST).Format("060102150405")+`[0-9]{6}`)
		if urls[i] != e["receipt_url"] || seen[urls[i]] {
			t.Fatalf("cancel_receipt_urls[%d] = %v, want the fresh receipt_url of cancel_history[%d] %v", i, urls[i], i, e["receipt_url"])
		}
		seen[urls[i]] = true
		mask(t, e, "receipt_url", cxReceiptPattern)
		urls[i] = "<receipt_url>"
	}
	return p
}

// cxPaidCard is paidCardJSON with the replacements of cxReplace.
func cxPaidCard(t *testing.T, pairs ...string) string {
	t.Helper()
	return cxReplace(t, paidCardJSON, pairs...)
}

// cxHistory returns a cancel_history entry of an expectation.
func cxHistory(amount string, at int64, reason string) string {
	return fmt.Sprintf(`{"pg_tid":"<pg_tid>","amount":%s,"cancelled_at":%d,"reason":%q,"receipt_url":"<receipt_url>"}`, amount, at, reason)
}

// cxSameAsLookup asserts that a cancel's answer is byte for byte the
// answer of a following GET /payments/{imp_uid}.
func cxSameAsLookup(m *merchant, impUID string, res *result) {
	m.b.t.Helper()
	got := m.get("/payments/"+impUID).want(200, 0)
	if !bytes.Equal(got.raw, res.raw) {
		m.b.t.Fatalf("cancel answered\n%s\nbut the lookup answers\n%s", res.raw, got.raw)
	}
}

// cxState is what a refused request must leave as it was: the raw lookup
// of a payment and the number of rows of every table a write touches.
type cxState struct {
	lookup                                       string
	payments, cancels, balances, events, uidRows int
}

func cxSnapshot(m *merchant, impUID string) cxState {
	m.b.t.Helper()
	b := m.b
	s := cxState{payments: b.count("payments"), cancels: b.count("payment_cancels"), balances: b.count("payment_balances"),
		events: b.count("webhook_events"), uidRows: b.count("merchant_uids")}
	if impUID != "" {
		s.lookup = string(m.get("/payments/"+impUID).want(200, 0).raw)
	}
	return s
}

// cxUnchanged asserts that nothing changed since before.
func cxUnchanged(m *merchant, impUID string, before cxState) {
	m.b.t.Helper()
	if after := cxSnapshot(m, impUID); after != before {
		m.b.t.Fatalf("a refused request changed something:\nbefore %+v\nafter  %+v", before, after)
	}
}

// cxRefused posts body to path, asserts the failure envelope, and asserts
// that the payment impUID (if any) and the stored rows did not change.
func cxRefused(m *merchant, impUID, path string, body any, status, code int, msg string) {
	m.b.t.Helper()
	before := cxSnapshot(m, impUID)
	m.post(path, body).wantError(status, code, msg)
	cxUnchanged(m, impUID, before)
}

// cxSandbox records a sandbox payment and returns its imp_uid.
func cxSandbox(m *merchant, body jsonBody) string {
	m.b.t.Helper()
	return m.post("/sandbox/payments", body).want(200, 0).obj()["imp_uid"].(string)
}

func TestCancel_PartialThenRest(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	impUID := sandboxPaid(m, "order-1")["imp_uid"].(string)

	b.clock.Advance(time.Minute)
	res := m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 300, "reason": "wrong size"}).want(200, 0)
	cxSameAsLookup(m, impUID, res)
	firstTID := res.obj()["cancel_history"].([]any)[0].(map[string]any)["pg_tid"]
	firstURL := res.obj()["cancel_receipt_urls"].([]any)[0]
	wantJSON(t, cxMask(t, res.obj()), cxPaidCard(t,
		`"cancel_amount":0`, `"cancel_amount":300`,
		`"cancel_history":[]`, `"cancel_history":[`+cxHistory("300", testStart+60, "wrong size")+`]`,
		`"cancel_receipt_urls":[]`, `"cancel_receipt_urls":["<receipt_url>"]`))

	b.clock.Advance(time.Minute)
	res = m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "reason": "changed my mind"}).want(200, 0)
	cxSameAsLookup(m, impUID, res)
	first := res.obj()["cancel_history"].([]any)[0].(map[string]any)
	if first["pg_tid"] != firstTID || res.obj()["cancel_receipt_urls"].([]any)[0] != firstURL {
		t.Fatalf("the first cancellation changed: %v", first)
	}
	wantJSON(t, cxMask(t, res.obj()), cxPaidCard(t,
		`"cancel_amount":0`, `"cancel_amount":1000`,
		`"status":"paid"`, `"status":"cancelled"`,
		`"cancelled_at":0`, `"cancelled_at":1790000120`,
		`"cancel_reason":null`, `"cancel_reason":"changed my mind"`,
		`"cancel_history":[]`, `"cancel_history":[`+cxHistory("300", testStart+60, "wrong size")+`,`+cxHistory("700", testStart+120, "changed my mind")+`]`,
		`"cancel_receipt_urls":[]`, `"cancel_receipt_urls":["<receipt_url>","<receipt_url>"]`))

	cxRefused(m, impUID, "/payments/cancel", jsonBody{"imp_uid": impUID}, 200, 1, "이미 전액취소된 주문입니다.")
	cxRefused(m, impUID, "/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 1}, 200, 1, "이미 전액취소된 주문입니다.")
}

func TestCancel_AbsentOrZeroAmountRefundsEverything(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	for i, body := range []any{
		jsonBody{"reason": "absent"},
		jsonBody{"amount": 0, "reason": "zero"},
		jsonBody{"amount": "0", "reason": "zero text"},
		url.Values{"amount": {" 0 "}, "reason": {"zero form"}},
	} {
		impUID := sandboxPaid(m, fmt.Sprintf("order-%d", i))["imp_uid"].(string)
		if i == 1 { // and after a partial cancel: what is left
			m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 250}).want(200, 0)
		}
		var reason string
		switch v := body.(type) {
		case jsonBody:
			v["imp_uid"], reason = impUID, v["reason"].(string)
		case url.Values:
			v.Set("imp_uid", impUID)
			reason = v.Get("reason")
		}
		p := m.post("/payments/cancel", body).want(200, 0).obj()
		hist := p["cancel_history"].([]any)
		last := hist[len(hist)-1].(map[string]any)
		wantLast := json.Number("1000")
		if i == 1 {
			wantLast = "750"
		}
		if p["status"] != "cancelled" || p["cancel_amount"] != json.Number("1000") || last["amount"] != wantLast ||
			p["cancel_reason"] != reason || last["reason"] != reason || p["cancelled_at"] != json.Number("1790000000") {
			t.Errorf("cancel %d: %v", i, p)
		}
	}
}

func TestCancel_ByMerchantUIDTakesNewestPaid(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	older := cxSandbox(m, jsonBody{"merchant_uid": "order", "amount": 1000, "started_at": testStart - 300})
	newer := cxSandbox(m, jsonBody{"merchant_uid": "order", "amount": 2000, "started_at": testStart - 200})
	ready := cxSandbox(m, jsonBody{"merchant_uid": "order", "amount": 3000, "started_at": testStart - 100, "status": "ready"})
	other := sandboxPaid(m, "other")["imp_uid"].(string)
	olderBefore := m.get("/payments/" + older).raw

	p := m.post("/payments/cancel", jsonBody{"merchant_uid": "order", "amount": 500}).want(200, 0).obj()
	if p["imp_uid"] != newer || p["cancel_amount"] != json.Number("500") || p["status"] != "paid" {
		t.Fatalf("cancelled %v, want 500 of the newest paid payment %s", p, newer)
	}
	if got := m.get("/payments/" + older).raw; !bytes.Equal(got, olderBefore) {
		t.Fatalf("the older payment changed: %s", got)
	}
	// the partly cancelled one is still the newest paid one
	p = m.post("/payments/cancel", jsonBody{"merchant_uid": "order"}).want(200, 0).obj()
	if p["imp_uid"] != newer || p["cancel_amount"] != json.Number("2000") || p["status"] != "cancelled" {
		t.Fatalf("cancelled %v, want the rest of %s", p, newer)
	}
	// then the older paid one
	p = m.post("/payments/cancel", jsonBody{"merchant_uid": "order"}).want(200, 0).obj()
	if p["imp_uid"] != older || p["status"] != "cancelled" {
		t.Fatalf("cancelled %v, want %s", p, older)
	}
	// no paid payment is left: the newest one explains the refusal
	cxRefused(m, ready, "/payments/cancel", jsonBody{"merchant_uid": "order"}, 200, 1, "결제완료 상태가 아닌 결제건은 취소할 수 없습니다.")
	// imp_uid wins over merchant_uid
	p = m.post("/payments/cancel", jsonBody{"imp_uid": other, "merchant_uid": "order"}).want(200, 0).obj()
	if p["imp_uid"] != other || p["merchant_uid"] != "other" {
		t.Fatalf("cancelled %v, want %s named by imp_uid", p, other)
	}
}

func TestCancel_Checksum(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	impUID := sandboxPaid(m, "order-1")["imp_uid"].(string)
	m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 300, "checksum": 1000}).want(200, 0)
	for _, sum := range []any{1000, 0, 699, "701", 300} {
		cxRefused(m, impUID, "/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 100, "checksum": sum}, 200, 1, "checksum 불일치: 취소가능금액은 700입니다.")
	}
	// the checksum is checked before the amount
	cxRefused(m, impUID, "/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 5000, "checksum": 1}, 200, 1, "checksum 불일치: 취소가능금액은 700입니다.")
	p := m.post("/payments/cancel", url.Values{"imp_uid": {impUID}, "amount": {"200"}, "checksum": {"700"}}).want(200, 0).obj()
	if p["cancel_amount"] != json.Number("500") {
		t.Fatalf("cancel_amount = %v, want 500", p["cancel_amount"])
	}
	p = m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "checksum": "500.0"}).want(200, 0).obj()
	if p["status"] != "cancelled" || p["cancel_amount"] != json.Number("1000") {
		t.Fatalf("full cancel with checksum: %v", p)
	}

	usd := cxSandbox(m, jsonBody{"merchant_uid": "order-usd", "amount": "12.5", "currency": "USD"})
	p = m.post("/payments/cancel", jsonBody{"imp_uid": usd, "amount": 2, "checksum": 12.5}).want(200, 0).obj()
	if p["cancel_amount"] != json.Number("2") || p["cancel_history"].([]any)[0].(map[string]any)["amount"] != json.Number("2") {
		t.Fatalf("USD partial cancel: %v", p)
	}
	cxRefused(m, usd, "/payments/cancel", jsonBody{"imp_uid": usd, "amount": 1, "checksum": 12.5}, 200, 1, "checksum 불일치: 취소가능금액은 10.5입니다.")
	cxRefused(m, usd, "/payments/cancel", jsonBody{"imp_uid": usd, "amount": "10.51"}, 200, 1, "취소요청금액이 취소가능금액(10.5)을 초과합니다.")
	p = m.post("/payments/cancel", jsonBody{"imp_uid": usd, "amount": 0.25, "checksum": "10.50"}).want(200, 0).obj()
	if p["cancel_amount"] != json.Number("2.25") || p["cancel_history"].([]any)[1].(map[string]any)["amount"] != json.Number("0.25") {
		t.Fatalf("USD cancel of 0.25: %v", p)
	}
	cxRefused(m, usd, "/payments/cancel", jsonBody{"imp_uid": usd, "checksum": 10}, 200, 1, "checksum 불일치: 취소가능금액은 10.25입니다.")
	cxRefused(m, usd, "/payments/cancel", jsonBody{"imp_uid": usd, "amount": 0.005}, 400, -1, "amount: must be a number of at least 0 with at most 2 decimals for USD")
	cxRefused(m, usd, "/payments/cancel", jsonBody{"imp_uid": usd, "checksum": "10.255"}, 400, -1, "checksum: must be a number of at least 0 with at most 2 decimals for USD")
}

func TestCancel_Refusals(t *testing.T) {
	b := setup(t)
	m, other := b.merchant("shop"), b.merchant("other")
	paid := sandboxPaid(m, "order-paid")["imp_uid"].(string)
	foreign := sandboxPaid(other, "order-foreign")["imp_uid"].(string)
	cancelled := cxSandbox(m, jsonBody{"merchant_uid": "order-cancelled", "amount": 1000, "status": "cancelled"})
	ready := cxSandbox(m, jsonBody{"merchant_uid": "order-ready", "amount": 1000, "status": "ready", "pay_method": "vbank"})
	failed := cxSandbox(m, jsonBody{"merchant_uid": "order-failed", "amount": 1000, "status": "failed"})

	const (
		noUID    = "imp_uid 또는 merchant_uid 중 하나를 지정해주셔야합니다."
		notFound = "취소할 결제건이 존재하지 않습니다."
		done     = "이미 전액취소된 주문입니다."
		notPaid  = "결제완료 상태가 아닌 결제건은 취소할 수 없습니다."
	)
	cases := []struct {
		name, impUID string // impUID: the payment that must not change
		body         any
		msg          string
	}{
		{"NoUID", paid, jsonBody{"amount": 100, "reason": "x"}, noUID},
		{"EmptyUIDs", paid, jsonBody{"imp_uid": "", "merchant_uid": ""}, noUID},
		{"EmptyForm", paid, url.Values{}, noUID},
		{"UnknownIMPUID", paid, jsonBody{"imp_uid": "imp_000000000000"}, notFound},
		{"UnknownIMPUIDWithRealMerchantUID", paid, jsonBody{"imp_uid": "imp_000000000000", "merchant_uid": "order-paid"}, notFound},
		{"UnknownMerchantUID", paid, jsonBody{"merchant_uid": "nope"}, notFound},
		{"OtherMerchantsIMPUID", paid, jsonBody{"imp_uid": foreign}, notFound},
		{"OtherMerchantsMerchantUID", paid, jsonBody{"merchant_uid": "order-foreign"}, notFound},
		{"FullyCancelled", cancelled, jsonBody{"imp_uid": cancelled}, done},
		{"FullyCancelledByMerchantUID", cancelled, jsonBody{"merchant_uid": "order-cancelled", "amount": 10}, done},
		{"Ready", ready, jsonBody{"imp_uid": ready}, notPaid},
		{"ReadyByMerchantUID", ready, jsonBody{"merchant_uid": "order-ready", "refund_holder": "홍길동", "refund_bank": "004", "refund_account": "123"}, notPaid},
		{"Failed", failed, jsonBody{"imp_uid": failed, "amount": 100}, notPaid},
		{"FailedByMerchantUID", failed, jsonBody{"merchant_uid": "order-failed"}, notPaid},
		{"OverCancellable", paid, jsonBody{"imp_uid": paid, "amount": 1001}, "취소요청금액이 취소가능금액(1000)을 초과합니다."},
		{"OverCancellableForm", paid, url.Values{"imp_uid": {paid}, "amount": {"99999"}}, "취소요청금액이 취소가능금액(1000)을 초과합니다."},
	}
	for _, c := range cases {
		t.Log(c.name)
		cxRefused(m, c.impUID, "/payments/cancel", c.body, 200, 1, c.msg)
	}
	// the other merchant's payment is untouched
	if p := other.get("/payments/"+foreign).want(200, 0).obj(); p["status"] != "paid" || p["cancel_amount"] != json.Number("0") {
		t.Fatalf("other merchant's payment changed: %v", p)
	}
	// and the over-amount refusal names what is left after a partial cancel
	m.post("/payments/cancel", jsonBody{"imp_uid": paid, "amount": 300}).want(200, 0)
	cxRefused(m, paid, "/payments/cancel", jsonBody{"imp_uid": paid, "amount": 701}, 200, 1, "취소요청금액이 취소가능금액(700)을 초과합니다.")
	m.post("/payments/cancel", jsonBody{"imp_uid": paid, "amount": 700}).want(200, 0)
}

func TestCancel_VBankNeedsRefundAccount(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	impUID := cxSandbox(m, jsonBody{"merchant_uid": "order-v", "amount": 5000, "pay_method": "vbank"})
	const msg = "가상계좌 환불에는 refund_holder, refund_bank, refund_account가 필요합니다."
	full := jsonBody{"refund_holder": "홍길동", "refund_bank": "088", "refund_account": "110-123-456789"}
	for _, missing := range []string{"all", "refund_holder", "refund_bank", "refund_account"} {
		body := jsonBody{"imp_uid": impUID, "amount": 1000}
		for k, v := range full {
			if missing != "all" && k != missing {
				body[k] = v
			}
		}
		cxRefused(m, impUID, "/payments/cancel", body, 200, 1, msg)
	}
	body := jsonBody{"imp_uid": impUID, "amount": 1000, "reason": "refund"}
	for k, v := range full {
		body[k] = v
	}
	res := m.post("/payments/cancel", body).want(200, 0)
	cxSameAsLookup(m, impUID, res)
	if p := res.obj(); p["status"] != "paid" || p["cancel_amount"] != json.Number("1000") || len(p["cancel_history"].([]any)) != 1 {
		t.Fatalf("vbank partial refund: %v", p)
	}
	cxRefused(m, impUID, "/payments/cancel", jsonBody{"imp_uid": impUID}, 200, 1, msg)
	delete(body, "amount")
	if p := m.post("/payments/cancel", body).want(200, 0).obj(); p["status"] != "cancelled" || p["cancel_amount"] != json.Number("5000") {
		t.Fatalf("vbank full refund: %v", p)
	}
}

func TestCancel_PhoneOnlyInTheMonthOfPayment(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	const (
		paidAt    = 1_790_778_600 // 2026-09-30 23:30:00 KST
		lastMin   = 1_790_780_340 // 2026-09-30 23:59:00 KST
		nextMonth = 1_790_780_430 // 2026-10-01 00:00:30 KST
		midnight  = 1_790_780_400 // 2026-10-01 00:00:00 KST
	)
	phone := func(uid string, at int64) string {
		return cxSandbox(m, jsonBody{"merchant_uid": uid, "amount": 3000, "pay_method": "phone", "pg_provider": "danal", "started_at": at, "paid_at": at})
	}
	a := phone("phone-a", paidAt)
	c := phone("phone-c", paidAt)
	card := cxSandbox(m, jsonBody{"merchant_uid": "card", "amount": 3000, "started_at": paidAt, "paid_at": paidAt})

	b.clock.Advance(time.Duration(lastMin-testStart) * time.Second)
	cxRelogin(m)
	p := m.post("/payments/cancel", jsonBody{"imp_uid": a, "amount": 1000}).want(200, 0).obj()
	if p["cancel_amount"] != json.Number("1000") || p["cancel_history"].([]any)[0].(map[string]any)["cancelled_at"] != json.Number(itoa(lastMin)) {
		t.Fatalf("cancel at 23:59 KST: %v", p)
	}
	b.clock.Advance(59 * time.Second) // 23:59:59, still September
	m.post("/payments/cancel", jsonBody{"imp_uid": a, "amount": 1000}).want(200, 0)

	b.clock.Advance(time.Second) // 00:00:00 October
	const msg = "휴대폰 소액결제는 결제한 달에만 취소할 수 있습니다."
	cxRefused(m, a, "/payments/cancel", jsonBody{"imp_uid": a}, 200, 1, msg)
	b.clock.Advance(30 * time.Second)
	if now := b.clock.Now().Unix(); now != nextMonth || now-30 != midnight {
		t.Fatalf("clock at %d", now)
	}
	cxRefused(m, a, "/payments/cancel", jsonBody{"imp_uid": a}, 200, 1, msg)
	cxRefused(m, c, "/payments/cancel", jsonBody{"imp_uid": c}, 200, 1, msg)
	cxRefused(m, c, "/payments/cancel", jsonBody{"merchant_uid": "phone-c", "amount": 1}, 200, 1, msg)
	// a card payment of the same time is refundable, and so is a phone
	// payment made in October
	m.post("/payments/cancel", jsonBody{"imp_uid": card}).want(200, 0)
	d := phone("phone-d", midnight)
	if p := m.post("/payments/cancel", jsonBody{"imp_uid": d}).want(200, 0).obj(); p["status"] != "cancelled" {
		t.Fatalf("October phone payment: %v", p)
	}
}

func TestCancel_BadInput(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	impUID := sandboxPaid(m, "order-1")["imp_uid"].(string)
	cases := []struct {
		name string
		body any
		msg  string
	}{
		{"AmountText", jsonBody{"amount": "ten"}, "amount: must be a number"},
		{"AmountBool", jsonBody{"amount": true}, "amount: must be a number"},
		{"AmountObject", jsonBody{"amount": map[string]any{"v": 1}}, "amount: must be a number"},
		{"AmountExponent", fmt.Sprintf(`{"imp_uid":%q,"amount":1e3}`, impUID), "amount: must be a number"},
		{"AmountNegative", jsonBody{"amount": -100}, "amount: must be a number of at least 0 with at most 0 decimals for KRW"},
		{"AmountDecimals", jsonBody{"amount": 10.5}, "amount: must be a number of at least 0 with at most 0 decimals for KRW"},
		{"AmountDecimalsForm", url.Values{"amount": {"100.01"}}, "amount: must be a number of at least 0 with at most 0 decimals for KRW"},
		{"ChecksumText", jsonBody{"checksum": "all"}, "checksum: must be a number"},
		{"ChecksumNegative", jsonBody{"checksum": -1000}, "checksum: must be a number of at least 0 with at most 0 decimals for KRW"},
		{"ChecksumDecimals", jsonBody{"checksum": "1000.5"}, "checksum: must be a number of at least 0 with at most 0 decimals for KRW"},
		{"ReasonTooLong", jsonBody{"reason": strings.Repeat("가", 201)}, "reason: must be at most 200 characters"},
		{"UnknownRefundBank", jsonBody{"refund_holder": "홍길동", "refund_bank": "999", "refund_account": "1"}, `refund_bank: unknown bank code "999"`},
		{"RefundHolderTooLong", jsonBody{"refund_holder": strings.Repeat("홍", 17)}, "refund_holder: must be at most 16 characters"},
		{"IMPUIDType", jsonBody{"imp_uid": []any{"x"}}, "imp_uid: must be a string"},
		{"EnableWebhookType", jsonBody{"enable_webhook": "sometimes"}, "enable_webhook: must be true or false"},
		{"NotJSONObject", `[1]`, "body: must be a JSON object"},
	}
	for _, c := range cases {
		body := c.body
		if jb, ok := body.(jsonBody); ok {
			if _, set := jb["imp_uid"]; !set {
				jb["imp_uid"] = impUID
			}
		} else if form, ok := body.(url.Values); ok {
			form.Set("imp_uid", impUID)
		}
		cxRefused(m, impUID, "/payments/cancel", body, 400, -1, c.msg)
	}
	// at the limits it works
	p := m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": "1000.000", "checksum": "1000", "reason": strings.Repeat("가", 200)}).want(200, 0).obj()
	if p["status"] != "cancelled" || p["cancel_reason"] != strings.Repeat("가", 200) {
		t.Fatalf("cancel at the limits: %v", p)
	}
}

// cxConcurrently sends n cancels with the bodies of body(i) at once and
// returns their answers.
func cxConcurrently(m *merchant, n int, body func(i int) jsonBody) []*result {
	m.token()
	out := make([]*result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = m.post("/payments/cancel", body(i))
		}()
	}
	close(start)
	wg.Wait()
	for i, r := range out {
		if r == nil {
			m.b.t.Fatalf("request %d did not complete", i)
		}
	}
	return out
}

// cxTally counts the answers by outcome: "ok" or the failure message.
func cxTally(t *testing.T, results []*result) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, r := range results {
		if r.status != 200 {
			t.Fatalf("%s: status %d: %s", r.req, r.status, r.raw)
		}
		switch r.body["code"] {
		case json.Number("0"):
			got["ok"]++
		case json.Number("1"):
			got[r.body["message"].(string)]++
		default:
			t.Fatalf("unexpected answer %s", r.raw)
		}
	}
	return got
}

// cxWantTally compares a tally with the expected one.
func cxWantTally(t *testing.T, got, want map[string]int) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("answers %v, want %v", got, want)
	}
}

// cxConsistent asserts cancel_amount == the sum of cancel_history and
// returns the payment.
func cxConsistent(t *testing.T, m *merchant, impUID string) map[string]any {
	t.Helper()
	p := m.get("/payments/"+impUID).want(200, 0).obj()
	var sum int64
	for _, h := range p["cancel_history"].([]any) {
		sum += cxNum(t, h.(map[string]any), "amount")
	}
	if got := cxNum(t, p, "cancel_amount"); got != sum || got > cxNum(t, p, "amount") {
		t.Fatalf("cancel_amount %d, sum of cancel_history %d, amount %v", got, sum, p["amount"])
	}
	return p
}

func TestCancel_ConcurrentPartials(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	impUID := sandboxPaid(m, "order-1")["imp_uid"].(string)
	results := cxConcurrently(m, 20, func(int) jsonBody { return jsonBody{"imp_uid": impUID, "amount": 100} })
	// once 10 × 100 are refunded the payment is fully cancelled, which is
	// the refusal the other ten get (decisions §3.1, §3.3)
	cxWantTally(t, cxTally(t, results), map[string]int{"ok": 10, "이미 전액취소된 주문입니다.": 10})
	p := cxConsistent(t, m, impUID)
	if p["cancel_amount"] != json.Number("1000") || p["status"] != "cancelled" || len(p["cancel_history"].([]any)) != 10 {
		t.Fatalf("after concurrent cancels: %v", p)
	}

	// amounts that do not divide the payment: the losers get the over-amount refusal
	impUID = sandboxPaid(m, "order-2")["imp_uid"].(string)
	results = cxConcurrently(m, 20, func(int) jsonBody { return jsonBody{"imp_uid": impUID, "amount": 300} })
	cxWantTally(t, cxTally(t, results), map[string]int{"ok": 3, "취소요청금액이 취소가능금액(100)을 초과합니다.": 17})
	p = cxConsistent(t, m, impUID)
	if p["cancel_amount"] != json.Number("900") || p["status"] != "paid" || len(p["cancel_history"].([]any)) != 3 {
		t.Fatalf("after concurrent cancels of 300: %v", p)
	}

	// mixed partial and full cancels: never more than the amount
	impUID = sandboxPaid(m, "order-3")["imp_uid"].(string)
	results = cxConcurrently(m, 20, func(i int) jsonBody {
		if i%5 == 0 {
			return jsonBody{"imp_uid": impUID}
		}
		return jsonBody{"imp_uid": impUID, "amount": 150}
	})
	tally := cxTally(t, results)
	p = cxConsistent(t, m, impUID)
	if p["cancel_amount"] != json.Number("1000") || p["status"] != "cancelled" || tally["ok"] != len(p["cancel_history"].([]any)) {
		t.Fatalf("after mixed concurrent cancels: %v, answers %v", p, tally)
	}
}

func TestCancel_ConcurrentSameChecksum(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	impUID := sandboxPaid(m, "order-1")["imp_uid"].(string)
	results := cxConcurrently(m, 20, func(int) jsonBody { return jsonBody{"imp_uid": impUID, "amount": 100, "checksum": 1000} })
	cxWantTally(t, cxTally(t, results), map[string]int{"ok": 1, "checksum 불일치: 취소가능금액은 900입니다.": 19})
	p := cxConsistent(t, m, impUID)
	if p["cancel_amount"] != json.Number("100") || p["status"] != "paid" {
		t.Fatalf("after concurrent cancels with one checksum: %v", p)
	}
}

// TestCancel_Property sends random sequences of cancels to one payment and
// checks the invariants after each: cancel_amount is the sum of the
// cancel_history amounts and at most amount; status is cancelled exactly
// when nothing is cancellable; a refused request changes nothing, byte for
// byte; and each answer is the one the rules of decisions §3.3 predict.
func TestCancel_Property(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.token()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		total := rapid.Int64Range(1, 3000).Draw(rt, "amount")
		impUID := cxSandbox(m, jsonBody{"merchant_uid": fmt.Sprintf("prop-%d", n), "amount": total})
		lookup := m.get("/payments/" + impUID)
		var cancelled int64 // the model
		steps := rapid.IntRange(1, 6).Draw(rt, "steps")
		for range steps {
			left := total - cancelled
			body := jsonBody{"imp_uid": impUID}
			amount := left // what the request asks to refund
			switch rapid.IntRange(0, 4).Draw(rt, "amount kind") {
			case 0: // absent
			case 1:
				body["amount"] = 0
			case 2: // just over what is left
				amount = left + 1
				body["amount"] = amount
			default:
				amount = rapid.Int64Range(1, total+100).Draw(rt, "amount")
				body["amount"] = amount
			}
			checksumOK := true
			switch rapid.IntRange(0, 2).Draw(rt, "checksum kind") {
			case 0: // absent
			case 1:
				body["checksum"] = left
			default:
				sum := rapid.Int64Range(0, total+100).Filter(func(v int64) bool { return v != left }).Draw(rt, "wrong checksum")
				body["checksum"] = sum
				checksumOK = false
			}

			res := m.post("/payments/cancel", body)
			var wantMsg string
			switch {
			case left == 0:
				wantMsg = "이미 전액취소된 주문입니다."
			case !checksumOK:
				wantMsg = fmt.Sprintf("checksum 불일치: 취소가능금액은 %d입니다.", left)
			case amount > left:
				wantMsg = fmt.Sprintf("취소요청금액이 취소가능금액(%d)을 초과합니다.", left)
			}
			got := m.get("/payments/" + impUID)
			if res.status != 200 || got.status != 200 {
				rt.Fatalf("%v: %d %s; lookup %d %s", body, res.status, res.raw, got.status, got.raw)
			}
			if wantMsg != "" {
				if res.body["code"] != json.Number("1") || res.body["message"] != wantMsg {
					rt.Fatalf("%v: got %s, want refusal %q", body, res.raw, wantMsg)
				}
				if !bytes.Equal(got.raw, lookup.raw) {
					rt.Fatalf("%v was refused but changed the payment:\nbefore %s\nafter  %s", body, lookup.raw, got.raw)
				}
			} else {
				if res.body["code"] != json.Number("0") || !bytes.Equal(res.raw, got.raw) {
					rt.Fatalf("%v: got %s, want success equal to the lookup %s", body, res.raw, got.raw)
				}
				cancelled += amount
			}
			lookup = got
			p, _ := got.body["response"].(map[string]any)
			var sum int64
			hist, _ := p["cancel_history"].([]any)
			for _, h := range hist {
				v, _ := h.(map[string]any)["amount"].(json.Number).Int64()
				sum += v
			}
			ca, _ := p["cancel_amount"].(json.Number).Int64()
			if ca != sum || ca > total || ca != cancelled {
				rt.Fatalf("cancel_amount %d, sum of cancel_history %d, amount %d, expected cancelled %d", ca, sum, total, cancelled)
			}
			if (p["status"] == "cancelled") != (ca == total) || (p["status"] != "cancelled" && p["status"] != "paid") {
				rt.Fatalf("status %v with cancel_amount %d of %d", p["status"], ca, total)
			}
		}
	})
}

func TestCancel_Webhook(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	ctx := context.Background()
	impUID := sandboxPaid(m, "order-1")["imp_uid"].(string)

	// no Notification URL: nothing to send even when asked
	m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 100, "enable_webhook": true}).want(200, 0)
	if n := b.count("webhook_events"); n != 0 {
		t.Fatalf("%d outbox rows without any URL", n)
	}

	u := "https://shop.example/portone-hook"
	if _, err := b.svc.UpdateMerchantSettings(ctx, m.cred.IMPKey, service.MerchantSettings{NotificationURL: &u}); err != nil {
		t.Fatal(err)
	}
	m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 100}).want(200, 0)
	m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 100, "enable_webhook": false}).want(200, 0)
	if n := b.count("webhook_events"); n != 0 {
		t.Fatalf("%d outbox rows without enable_webhook", n)
	}
	// a refusal queues nothing
	cxRefused(m, impUID, "/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 5000, "enable_webhook": true}, 200, 1, "취소요청금액이 취소가능금액(700)을 초과합니다.")

	p := m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 200, "enable_webhook": true}).want(200, 0).obj()
	p2 := m.post("/payments/cancel", url.Values{"imp_uid": {impUID}, "enable_webhook": {"true"}}).want(200, 0).obj()
	tid := func(p map[string]any, i int) string {
		return p["cancel_history"].([]any)[i].(map[string]any)["pg_tid"].(string)
	}
	rows := b.outbox()
	if len(rows) != 2 {
		t.Fatalf("outbox = %+v, want 2 rows", rows)
	}
	for i, want := range []string{tid(p, 3), tid(p2, 4)} {
		r := rows[i]
		if !regexp.MustCompile(`^msg_[0-9a-f]{32}$`).MatchString(r.WebhookID) {
			t.Errorf("webhook_id = %q", r.WebhookID)
		}
		r.WebhookID = ""
		wantRow := outboxRow{URL: u, Type: "cancelled", IMPUID: impUID, MerchantUID: "order-1", Status: "cancelled",
			CancellationID: want, State: "pending", MerchantID: m.cred.MerchantID}
		if r != wantRow {
			t.Errorf("outbox row %d = %+v\nwant %+v", i, r, wantRow)
		}
	}
	if rows[0].WebhookID == rows[1].WebhookID {
		t.Fatalf("two events share webhook_id %s", rows[0].WebhookID)
	}

	// a payment with its own notice_url gets its webhooks there
	own := cxSandbox(m, jsonBody{"merchant_uid": "order-2", "amount": 1000, "notice_url": "https://shop.example/order-2"})
	m.post("/payments/cancel", jsonBody{"imp_uid": own, "enable_webhook": true}).want(200, 0)
	if rows = b.outbox(); len(rows) != 3 || rows[2].URL != "https://shop.example/order-2" || rows[2].IMPUID != own {
		t.Fatalf("outbox = %+v", rows)
	}
}
