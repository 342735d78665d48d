package httpapi_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/payport/payport/service"
)

const cxNoticeURL = "https://shop.example/vbank-hook"

// cxVBankBody is a complete POST /vbanks body due a day after the test start.
func cxVBankBody(merchantUID string) jsonBody {
	return jsonBody{
		"merchant_uid": merchantUID, "amount": 25000, "vbank_code": "088", "vbank_due": testStart + 86400,
		"vbank_holder": "홍길동", "name": "Desk lamp", "buyer_name": "Hong", "buyer_email": "hong@example.com",
		"buyer_tel": "010-1234-5678", "buyer_addr": "서울특별시 중구 세종대로 110", "buyer_postcode": "04524",
		"notice_url": cxNoticeURL, "custom_data": map[string]any{"room": 7},
	}
}

// readyVBankJSON is the record POST /vbanks answers for cxVBankBody("vb-1")
// at the test start, with its random identifiers masked.
const readyVBankJSON = `{
 "imp_uid":"<imp_uid>","merchant_uid":"vb-1","pay_method":"vbank","channel":"api",
 "pg_provider":"nice","emb_pg_provider":null,"pg_tid":"<pg_tid>","pg_id":"nictest04m","escrow":false,
 "apply_num":null,"bank_code":null,"bank_name":null,"card_code":null,"card_name":null,
 "card_quota":0,"card_number":null,"card_type":null,"vbank_code":"088","vbank_name":"신한은행",
 "vbank_num":"<vbank_num>","vbank_holder":"홍길동","vbank_date":1790086400,"vbank_issued_at":1790000000,"name":"Desk lamp",
 "amount":25000,"cancel_amount":0,"currency":"KRW","buyer_name":"Hong","buyer_email":"hong@example.com",
 "buyer_tel":"010-1234-5678","buyer_addr":"서울특별시 중구 세종대로 110","buyer_postcode":"04524","custom_data":"{\"room\":7}",
 "user_agent":null,"status":"ready","started_at":1790000000,"paid_at":0,"failed_at":0,
 "cancelled_at":0,"fail_reason":null,"cancel_reason":null,"receipt_url":null,
 "cancel_history":[],"cancel_receipt_urls":[],"cash_receipt_issued":false,"customer_uid":null,
 "customer_uid_usage":null}`

// cxWantEvents asserts the outbox rows (webhook ids aside).
func cxWantEvents(t *testing.T, b *bundle, want ...outboxRow) {
	t.Helper()
	got := b.outbox()
	if len(got) != len(want) {
		t.Fatalf("outbox = %+v, want %+v", got, want)
	}
	for i := range got {
		if !strings.HasPrefix(got[i].WebhookID, "msg_") {
			t.Errorf("webhook_id = %q", got[i].WebhookID)
		}
		got[i].WebhookID = ""
		if got[i] != want[i] {
			t.Errorf("outbox row %d = %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestVBank_Issue(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	res := m.post("/vbanks", cxVBankBody("vb-1")).want(200, 0)
	p := res.obj()
	impUID := p["imp_uid"].(string)
	cxSameAsLookup(m, impUID, res)
	if !strings.HasPrefix(p["pg_tid"].(string), "nictest04m260921231320") { // pg_id and KST issue time
		t.Errorf("pg_tid = %v", p["pg_tid"])
	}
	wantJSON(t, cxMask(t, p), readyVBankJSON)
	ready := outboxRow{URL: cxNoticeURL, Type: "ready", IMPUID: impUID, MerchantUID: "vb-1", Status: "ready", State: "pending", MerchantID: m.cred.MerchantID}
	cxWantEvents(t, b, ready)

	// the same order number may get another account while unpaid; without
	// any URL no webhook is queued
	body := cxVBankBody("vb-1")
	delete(body, "notice_url")
	again := m.post("/vbanks", body).want(200, 0).obj()
	if again["imp_uid"] == impUID || again["status"] != "ready" || again["vbank_num"] == p["vbank_num"] {
		t.Fatalf("second account: %v", again)
	}
	cxWantEvents(t, b, ready)
	// with the merchant's Notification URL it goes there
	u := "https://shop.example/notify"
	if _, err := b.svc.UpdateMerchantSettings(context.Background(), m.cred.IMPKey, service.MerchantSettings{NotificationURL: &u}); err != nil {
		t.Fatal(err)
	}
	third := m.post("/vbanks", url.Values{"merchant_uid": {"vb-2"}, "amount": {"1000"}, "vbank_code": {"004"},
		"vbank_due": {itoa(testStart + 60)}, "vbank_holder": {"payport"}}).want(200, 0).obj()
	if third["vbank_name"] != "KB국민은행" || third["vbank_date"] != json.Number(itoa(testStart+60)) || third["name"] != nil {
		t.Fatalf("form-issued account: %v", third)
	}
	cxWantEvents(t, b, ready, outboxRow{URL: u, Type: "ready", IMPUID: third["imp_uid"].(string), MerchantUID: "vb-2", Status: "ready", State: "pending", MerchantID: m.cred.MerchantID})
}

func TestVBank_BadInput(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	sandboxPaid(m, "existing")
	with := func(field string, v any) jsonBody {
		body := cxVBankBody("vb-1")
		if v == nil {
			delete(body, field)
		} else {
			body[field] = v
		}
		return body
	}
	cases := []struct {
		body jsonBody
		msg  string
	}{
		{with("merchant_uid", strings.Repeat("x", 41)), "merchant_uid: must be at most 40 characters"},
		{with("vbank_holder", strings.Repeat("홍", 17)), "vbank_holder: must be at most 16 characters"},
		{with("name", strings.Repeat("가", 41)), "name: must be at most 40 characters"},
		{with("buyer_name", strings.Repeat("홍", 17)), "buyer_name: must be at most 16 characters"},
		{with("buyer_email", strings.Repeat("a", 53)+"@example.com"), "buyer_email: must be at most 64 characters"},
		{with("buyer_tel", "010-1234-5678-90"+"1"), "buyer_tel: must be at most 16 characters"},
		{with("buyer_addr", strings.Repeat("주", 129)), "buyer_addr: must be at most 128 characters"},
		{with("buyer_postcode", "123456789"), "buyer_postcode: must be at most 8 characters"},
		{with("merchant_uid", nil), "merchant_uid: required"},
		{with("merchant_uid", ""), "merchant_uid: required"},
		{with("amount", nil), "amount: required"},
		{with("vbank_code", nil), "vbank_code: required"},
		{with("vbank_due", nil), "vbank_due: required"},
		{with("vbank_holder", nil), "vbank_holder: required"},
		{with("amount", 0), "amount: must be a positive number with at most 0 decimals for KRW"},
		{with("amount", -5), "amount: must be a positive number with at most 0 decimals for KRW"},
		{with("amount", 10.5), "amount: must be a positive number with at most 0 decimals for KRW"},
		{with("amount", "lots"), "amount: must be a number"},
		{with("vbank_due", testStart), "vbank_due: must be in the future (now is 1790000000)"},
		{with("vbank_due", testStart-1), "vbank_due: must be in the future (now is 1790000000)"},
		{with("vbank_due", "tomorrow"), "vbank_due: must be a number"},
		{with("vbank_due", 1790086400.5), "vbank_due: must be an integer"},
		{with("notice_url", "ftp://shop.example"), "notice_url: must be an absolute http or https URL"},
	}
	for _, c := range cases {
		cxRefused(m, "", "/vbanks", c.body, 400, -1, c.msg)
	}

	// exactly at every limit it works, counted in characters
	body := cxVBankBody(strings.Repeat("x", 40))
	for field, v := range map[string]string{
		"vbank_holder": strings.Repeat("홍", 16), "name": strings.Repeat("가", 40), "buyer_name": strings.Repeat("홍", 16),
		"buyer_email": strings.Repeat("a", 52) + "@example.com", "buyer_tel": "010-1234-5678-90", "buyer_addr": strings.Repeat("주", 128),
		"buyer_postcode": "12345678",
	} {
		body[field] = v
	}
	p := m.post("/vbanks", body).want(200, 0).obj()
	if p["vbank_holder"] != strings.Repeat("홍", 16) || p["buyer_addr"] != strings.Repeat("주", 128) {
		t.Fatalf("issued at the limits: %v", p)
	}
}

func TestVBank_Refusals(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	ctx := context.Background()
	sandboxPaid(m, "paid-order")
	cxSandbox(m, jsonBody{"merchant_uid": "ready-order", "amount": 1000, "status": "ready", "pay_method": "vbank"})
	cxSandbox(m, jsonBody{"merchant_uid": "failed-order", "amount": 1000, "status": "failed"})
	cxSandbox(m, jsonBody{"merchant_uid": "mixed-order", "amount": 1000, "status": "failed"})
	cxSandbox(m, jsonBody{"merchant_uid": "mixed-order", "amount": 1000, "status": "paid", "started_at": testStart - 60})

	with := func(field string, v any) jsonBody {
		body := cxVBankBody("vb-1")
		body[field] = v
		return body
	}
	cxRefused(m, "", "/vbanks", with("vbank_code", "000"), 200, 1, "지원하지 않는 은행코드입니다.")
	cxRefused(m, "", "/vbanks", with("vbank_code", "088 "), 200, 1, "지원하지 않는 은행코드입니다.")
	cxRefused(m, "", "/vbanks", with("merchant_uid", "paid-order"), 200, 1, "이미 결제완료된 merchant_uid입니다.")
	cxRefused(m, "", "/vbanks", with("merchant_uid", "mixed-order"), 200, 1, "이미 결제완료된 merchant_uid입니다.")
	cxRefused(m, "", "/vbanks", with("pg", "payco"), 200, 1, "가상계좌 발급을 위해서는 별도의 PG 계약이 필요합니다.")
	cxRefused(m, "", "/vbanks", with("pg", "toss"), 200, 1, "등록되지 않은 PG설정입니다: toss")
	cxRefused(m, "", "/vbanks", with("pg", "nice.other"), 200, 1, "등록되지 않은 PG설정입니다: nice.other")
	for _, uid := range []string{"ready-order", "failed-order"} {
		if p := m.post("/vbanks", with("merchant_uid", uid)).want(200, 0).obj(); p["status"] != "ready" || p["merchant_uid"] != uid {
			t.Fatalf("vbank for %s: %v", uid, p)
		}
	}
	m.post("/vbanks", with("pg", "nice.nictest04m")).want(200, 0)

	// a PG contract without virtual accounts
	if _, err := b.svc.AddPGSetting(ctx, m.cred.IMPKey, "kcp", ""); err != nil {
		t.Fatal(err)
	}
	cxRefused(m, "", "/vbanks", with("pg", "kcp"), 200, 1, "가상계좌 발급을 위해서는 별도의 PG 계약이 필요합니다.")
	cxRefused(m, "", "/vbanks", with("pg", "kcp.T0000"), 200, 1, "가상계좌 발급을 위해서는 별도의 PG 계약이 필요합니다.")
	cxRefused(m, "", "/vbanks", cxVBankBody("vb-2"), 200, 1, "비인증 PG설정이 2개 이상이므로 pg 파라메터를 지정해주세요.")

	// html5_inicis needs its api_key as the pg_api_key query
	set, err := b.svc.AddPGSetting(ctx, m.cred.IMPKey, "html5_inicis", "")
	if err != nil || set.APIKey == "" {
		t.Fatalf("add html5_inicis: %+v, %v", set, err)
	}
	const hashMsg = "[html5_inicis] hashData 불일치: pg_api_key를 확인해주세요."
	cxRefused(m, "", "/vbanks", with("pg", "html5_inicis"), 200, -1, hashMsg)
	cxRefused(m, "", "/vbanks?pg_api_key=", with("pg", "html5_inicis"), 200, -1, hashMsg)
	cxRefused(m, "", "/vbanks?pg_api_key=wrong", with("pg", "html5_inicis"), 200, -1, hashMsg)
	cxRefused(m, "", "/vbanks?pg_api_key="+strings.ToUpper(set.APIKey)+"x", with("pg", "html5_inicis"), 200, -1, hashMsg)
	// the key goes in the query, not the body
	body := with("pg", "html5_inicis")
	body["pg_api_key"] = set.APIKey
	cxRefused(m, "", "/vbanks", body, 200, -1, hashMsg)
	p := m.post("/vbanks?pg_api_key="+url.QueryEscape(set.APIKey), with("pg", "html5_inicis")).want(200, 0).obj()
	if p["pg_provider"] != "html5_inicis" || p["pg_id"] != "INIpayTest" || p["status"] != "ready" {
		t.Fatalf("html5_inicis account: %v", p)
	}
	// other providers ignore the query
	m.post("/vbanks?pg_api_key=whatever", with("pg", "nice")).want(200, 0)
}

func TestVBank_Deposit(t *testing.T) {
	b := setup(t)
	m, other := b.merchant("shop"), b.merchant("other")
	v := m.post("/vbanks", cxVBankBody("vb-1")).want(200, 0).obj()
	impUID := v["imp_uid"].(string)
	ready := outboxRow{URL: cxNoticeURL, Type: "ready", IMPUID: impUID, MerchantUID: "vb-1", Status: "ready", State: "pending", MerchantID: m.cred.MerchantID}

	const notFound = "존재하지 않는 결제정보입니다."
	cxRefused(m, impUID, "/sandbox/vbanks/imp_000000000000/deposit", nil, 404, 1, notFound)
	cxRefused(other, "", "/sandbox/vbanks/"+impUID+"/deposit", nil, 404, 1, notFound)
	card := sandboxPaid(m, "card-order")["imp_uid"].(string)
	cxRefused(m, card, "/sandbox/vbanks/"+card+"/deposit", nil, 200, 1, "가상계좌 결제건이 아닙니다.")
	if p := m.get("/payments/"+impUID).want(200, 0).obj(); p["status"] != "ready" {
		t.Fatalf("status after refused deposits: %v", p["status"])
	}

	b.clock.Advance(10 * time.Minute)
	res := m.post("/sandbox/vbanks/"+impUID+"/deposit", nil).want(200, 0)
	cxSameAsLookup(m, impUID, res)
	wantJSON(t, cxMask(t, res.obj()), cxReplace(t, readyVBankJSON,
		`"status":"ready"`, `"status":"paid"`,
		`"paid_at":0`, `"paid_at":1790000600`,
		`"receipt_url":null`, `"receipt_url":"<receipt_url>"`))
	cxWantEvents(t, b, ready, outboxRow{URL: cxNoticeURL, Type: "paid", IMPUID: impUID, MerchantUID: "vb-1", Status: "paid", State: "pending", MerchantID: m.cred.MerchantID})

	cxRefused(m, impUID, "/sandbox/vbanks/"+impUID+"/deposit", nil, 200, 1, "입금대기 상태가 아닌 가상계좌입니다.")
	// a paid order number gets no new account
	cxRefused(m, "", "/vbanks", cxVBankBody("vb-1"), 200, 1, "이미 결제완료된 merchant_uid입니다.")

	// refund: a paid virtual account needs the account to refund to
	cxRefused(m, impUID, "/payments/cancel", jsonBody{"imp_uid": impUID}, 200, 1, "가상계좌 환불에는 refund_holder, refund_bank, refund_account가 필요합니다.")
	p := m.post("/payments/cancel", jsonBody{"merchant_uid": "vb-1", "reason": "returned", "refund_holder": "홍길동",
		"refund_bank": "004", "refund_account": "123456-01-234567"}).want(200, 0).obj()
	if p["imp_uid"] != impUID || p["status"] != "cancelled" || p["cancel_amount"] != json.Number("25000") ||
		p["cancelled_at"] != json.Number("1790000600") || p["cancel_reason"] != "returned" {
		t.Fatalf("vbank refund: %v", p)
	}
	cxRefused(m, impUID, "/sandbox/vbanks/"+impUID+"/deposit", nil, 200, 1, "입금대기 상태가 아닌 가상계좌입니다.")
}

func TestVBank_DepositDeadline(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	issue := func(uid string, due int64) string {
		body := cxVBankBody(uid)
		body["vbank_due"] = due
		return m.post("/vbanks", body).want(200, 0).obj()["imp_uid"].(string)
	}
	const due = testStart + 3*3600
	early := issue("early", due)
	onTime := issue("on-time", due+1)
	late := issue("late", due)

	b.clock.Advance(3*time.Hour - time.Second)
	cxRelogin(m)
	m.post("/sandbox/vbanks/"+early+"/deposit", nil).want(200, 0)
	b.clock.Advance(time.Second) // at the deadline of early and late: too late
	cxRefused(m, late, "/sandbox/vbanks/"+late+"/deposit", nil, 200, 1, "입금기한이 지난 가상계좌입니다.")
	if p := m.post("/sandbox/vbanks/"+onTime+"/deposit", nil).want(200, 0).obj(); p["paid_at"] != json.Number(itoa(due)) {
		t.Fatalf("deposit a second before the deadline: %v", p)
	}
	b.clock.Advance(48 * time.Hour)
	cxRelogin(m)
	cxRefused(m, late, "/sandbox/vbanks/"+late+"/deposit", nil, 200, 1, "입금기한이 지난 가상계좌입니다.")
	p := m.get("/payments/"+late).want(200, 0).obj()
	if p["status"] != "ready" || p["paid_at"] != json.Number("0") || p["vbank_date"] != json.Number(itoa(due)) {
		t.Fatalf("expired account: %v", p)
	}
	// an expired account cannot be cancelled either; a new one may be issued
	cxRefused(m, late, "/payments/cancel", jsonBody{"imp_uid": late}, 200, 1, "결제완료 상태가 아닌 결제건은 취소할 수 없습니다.")
	body := cxVBankBody("late")
	body["vbank_due"] = b.clock.Now().Unix() + 60
	m.post("/vbanks", body).want(200, 0)
}

// cxBalanceJSON is the balance of an expectation.
func cxBalanceJSON(amount, cashReceipt, primary, secondary, discount string, histories ...string) string {
	return `{"amount":` + amount + `,"cash_receipt":` + cashReceipt + `,"primary":` + primary + `,"secondary":` + secondary +
		`,"discount":` + discount + `,"histories":[` + strings.Join(histories, ",") + `]}`
}

func cxHistoryJSON(cashReceipt, primary, secondary, discount, created string) string {
	return `{"cash_receipt":` + cashReceipt + `,"primary":` + primary + `,"secondary":` + secondary +
		`,"discount":` + discount + `,"created":` + created + `}`
}

// cxPart is a balance part: vat = round(taxable / 11), supply = taxable - vat.
func cxPart(supply, vat string) string {
	return `{"tax_free":0,"supply":` + supply + `,"vat":` + vat + `,"service":0}`
}

func TestBalance(t *testing.T) {
	b := setup(t)
	m, other := b.merchant("shop"), b.merchant("other")
	impUID := cxSandbox(m, jsonBody{"merchant_uid": "payco-1", "amount": 10000, "pg_provider": "payco", "pay_method": "card",
		"balance": map[string]any{"primary": 7000, "secondary": 2000, "discount": 1000, "cash_receipt": 5000}})
	var (
		zero  = cxPart("0", "0")
		p7000 = cxPart("6364", "636")
		p5000 = cxPart("4545", "455")
		p2000 = cxPart("1818", "182")
		p1000 = cxPart("909", "91")
	)
	paid := cxHistoryJSON(p5000, p7000, p2000, p1000, "1790000000")
	wantJSON(t, m.get("/payments/"+impUID+"/balance").want(200, 0).obj(), cxBalanceJSON("10000", p5000, p7000, p2000, p1000, paid))

	// a refund takes from primary, then secondary, then discount; the
	// cash-receipt part never exceeds what is left of primary
	b.clock.Advance(time.Minute)
	m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 8000}).want(200, 0)
	partly := cxHistoryJSON(zero, zero, p1000, p1000, "1790000060")
	wantJSON(t, m.get("/payments/"+impUID+"/balance").want(200, 0).obj(), cxBalanceJSON("10000", zero, zero, p1000, p1000, paid, partly))

	b.clock.Advance(time.Minute)
	m.post("/payments/cancel", jsonBody{"imp_uid": impUID, "amount": 1500}).want(200, 0)
	p500 := cxPart("455", "45")
	more := cxHistoryJSON(zero, zero, zero, p500, "1790000120")
	wantJSON(t, m.get("/payments/"+impUID+"/balance").want(200, 0).obj(), cxBalanceJSON("10000", zero, zero, zero, p500, paid, partly, more))

	m.post("/payments/cancel", jsonBody{"imp_uid": impUID}).want(200, 0)
	all := cxHistoryJSON(zero, zero, zero, zero, "1790000120")
	wantJSON(t, m.get("/payments/"+impUID+"/balance").want(200, 0).obj(), cxBalanceJSON("10000", zero, zero, zero, zero, paid, partly, more, all))

	// without parts everything is primary
	plain := cxSandbox(m, jsonBody{"merchant_uid": "payco-2", "amount": 1000, "pg_provider": "payco"})
	wantJSON(t, m.get("/payments/"+plain+"/balance").want(200, 0).obj(),
		cxBalanceJSON("1000", zero, p1000, zero, zero, cxHistoryJSON(zero, p1000, zero, zero, "1790000120")))

	// a payment recorded as cancelled has its payment and its refund
	refunded := cxSandbox(m, jsonBody{"merchant_uid": "payco-3", "amount": 2000, "pg_provider": "payco", "status": "cancelled",
		"started_at": testStart, "paid_at": testStart, "balance": map[string]any{"primary": 1000, "discount": 1000}})
	wantJSON(t, m.get("/payments/"+refunded+"/balance").want(200, 0).obj(), cxBalanceJSON("2000", zero, zero, zero, zero,
		cxHistoryJSON(zero, p1000, zero, p1000, "1790000000"), cxHistoryJSON(zero, zero, zero, zero, "1790000120")))

	// parts that do not add up, or unknown parts, are a 400 and record nothing
	for _, c := range []struct {
		parts map[string]any
		msg   string
	}{
		{map[string]any{"primary": 7000, "secondary": 2000}, "balance: primary + secondary + discount must equal amount 10000, got 9000"},
		{map[string]any{"primary": 7000, "secondary": 2000, "discount": 1001}, "balance: primary + secondary + discount must equal amount 10000, got 10001"},
		{map[string]any{"primary": 10000, "cash_receipt": 10001}, "balance.cash_receipt: must not exceed amount"},
		{map[string]any{"primary": 10000, "points": 0}, "balance.points: unknown part; use primary, secondary, discount, cash_receipt"},
		{map[string]any{"primary": -1, "secondary": 10001}, "balance.primary: must be a number of at least 0 with at most 0 decimals for KRW"},
		{map[string]any{"primary": "many"}, "balance.primary: must be a number"},
	} {
		cxRefused(m, "", "/sandbox/payments", jsonBody{"merchant_uid": "payco-bad", "amount": 10000, "pg_provider": "payco", "balance": c.parts}, 400, -1, c.msg)
	}
	cxRefused(m, "", "/sandbox/payments", jsonBody{"merchant_uid": "card-bad", "amount": 10000, "balance": map[string]any{"primary": 10000}}, 400, -1, "balance: only payco payments have a balance")
	m.get("/payments/find/payco-bad").wantError(404, 1, "존재하지 않는 결제정보입니다.")

	card := sandboxPaid(m, "card-1")["imp_uid"].(string)
	m.get("/payments/"+card+"/balance").wantError(200, 1, "결제수단별 금액 상세정보를 제공하지 않는 결제건입니다.")
	kakao := cxSandbox(m, jsonBody{"merchant_uid": "kakao-1", "amount": 1000, "pg_provider": "kakaopay"})
	m.get("/payments/"+kakao+"/balance").wantError(200, 1, "결제수단별 금액 상세정보를 제공하지 않는 결제건입니다.")
	m.get("/payments/imp_000000000000/balance").wantError(404, 1, "존재하지 않는 결제정보입니다.")
	other.get("/payments/"+impUID+"/balance").wantError(404, 1, "존재하지 않는 결제정보입니다.")
}
