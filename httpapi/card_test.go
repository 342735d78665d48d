package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payport/payport/service"
)

// Test cards of decisions §4.3.
const (
	ctShinhan   = "4242-4242-4242-4242" // approved, 366 신한카드, credit
	ctKB        = "5555-5555-5555-4444" // approved, 381 KB국민카드, credit
	ctNHDebit   = "4000-0566-5566-5556" // approved, 371 NH농협카드, debit
	ctRejected  = "4000-0000-0000-0002" // issuer decline; cannot be registered
	ctNoFunds   = "4000-0000-0000-9995" // issuer decline (funds); cannot be registered
	ctOverLimit = "4000-0000-0000-0341" // registers; every charge declines
	ctVisa      = "4111-1111-1111-1111" // any valid number: approved
)

// Exact messages of decisions §3.4, §4.2, §4.3, §5.1.
const (
	ctMsgUIDUsed      = "이미 사용된 merchant_uid입니다."
	ctMsgBadNumber    = "카드정보 인증에 실패하였습니다. [유효하지않은 카드번호]"
	ctMsgBadExpiry    = "카드정보 인증에 실패하였습니다. [유효기간 오류]"
	ctMsgRejected     = "[카드사 거절] 승인이 거절되었습니다."
	ctMsgNoFunds      = "[카드사 거절] 잔액이 부족합니다."
	ctMsgOverLimit    = "[카드사 거절] 한도가 초과되었습니다."
	ctMsgUnknownBuyer = "등록되지 않은 구매자입니다."
	ctMsgNoNonAuth    = "비인증결제모듈 사용정보를 찾을 수 없습니다."
	ctMsgAmbiguous    = "비인증 PG설정이 2개 이상이므로 pg 파라메터를 지정해주세요."
)

func ctMsgNoCustomer(uid string) string {
	return "요청하신 customer_uid(" + uid + ")로 등록된 정보를 찾을 수 없습니다."
}

// ctPaidJSON is the full record of the onetime payment ctOnetime makes
// with the 신한 test card at the test start, random identifiers masked.
const ctPaidJSON = `{
 "imp_uid":"<imp_uid>","merchant_uid":"order-1","pay_method":"card","channel":"api",
 "pg_provider":"nice","emb_pg_provider":null,"pg_tid":"<pg_tid>","pg_id":"nictest04m","escrow":false,
 "apply_num":"<apply_num>","bank_code":null,"bank_name":null,"card_code":"366","card_name":"신한카드",
 "card_quota":0,"card_number":"424242******4242","card_type":"0","vbank_code":null,"vbank_name":null,
 "vbank_num":null,"vbank_holder":null,"vbank_date":0,"vbank_issued_at":0,"name":"Notebook",
 "amount":1000,"cancel_amount":0,"currency":"KRW","buyer_name":"Hong","buyer_email":"hong@example.com",
 "buyer_tel":"010-1234-5678","buyer_addr":"Seoul","buyer_postcode":"04524","custom_data":null,
 "user_agent":null,"status":"paid","started_at":1790000000,"paid_at":1790000000,"failed_at":0,
 "cancelled_at":0,"fail_reason":null,"cancel_reason":null,"receipt_url":"<receipt_url>",
 "cancel_history":[],"cancel_receipt_urls":[],"cash_receipt_issued":false,"customer_uid":null,
 "customer_uid_usage":null}`

// ctFailedJSON is ctPaidJSON made with one of the declining test cards (all
// BC카드): status failed, no approval fields; card_number and fail_reason
// are filled in per card.
var ctFailedJSON = ctRecord(ctPaidJSON, map[string]any{
	"status": "failed", "paid_at": 0, "failed_at": 1790000000, "apply_num": nil, "receipt_url": nil,
	"card_code": "361", "card_name": "BC카드",
})

// ctCustomerJSON is the billing key registered by ctIssueBody with the 신한
// test card at the test start.
const ctCustomerJSON = `{
 "customer_uid":"cust-1","pg_provider":"nice","pg_id":"nictest04m","card_name":"신한카드",
 "card_code":"366","card_number":"424242******4242","card_type":"0","customer_name":"Hong",
 "customer_tel":"010-1234-5678","customer_email":"hong@example.com","customer_addr":"Seoul",
 "customer_postcode":"04524","inserted":1790000000,"updated":1790000000}`

// ctRecord returns the JSON text base with some fields replaced.
func ctRecord(base string, changes map[string]any) string {
	dec := json.NewDecoder(strings.NewReader(base))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		panic(err)
	}
	for k, v := range changes {
		if _, ok := m[k]; !ok {
			panic("ctRecord: no field " + k)
		}
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(out)
}

// ctOnetime is a complete onetime body charging card for merchantUID.
func ctOnetime(merchantUID, card string) jsonBody {
	return jsonBody{
		"merchant_uid": merchantUID, "amount": 1000, "card_number": card, "expiry": "2030-12",
		"birth": "900101", "pwd_2digit": "12", "name": "Notebook", "buyer_name": "Hong",
		"buyer_email": "hong@example.com", "buyer_tel": "010-1234-5678", "buyer_addr": "Seoul",
		"buyer_postcode": "04524",
	}
}

// ctIssueBody is a complete body of POST /subscribe/customers/{uid}.
func ctIssueBody(card string) jsonBody {
	return jsonBody{
		"card_number": card, "expiry": "2030-12", "birth": "900101", "pwd_2digit": "12",
		"customer_name": "Hong", "customer_tel": "010-1234-5678", "customer_email": "hong@example.com",
		"customer_addr": "Seoul", "customer_postcode": "04524",
	}
}

// ctWith returns a copy of body with the pairs key, value set; a nil value
// removes the key.
func ctWith(body jsonBody, kv ...any) jsonBody {
	out := jsonBody{}
	for k, v := range body {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

// ctMask masks the random identifiers of a card payment charged through
// the setting pgID: imp_uid and pg_tid always, apply_num and receipt_url
// when it was approved.
func ctMask(t *testing.T, p map[string]any, pgID string) map[string]any {
	t.Helper()
	mask(t, p, "imp_uid", `imp_[0-9]{12}`)
	mask(t, p, "pg_tid", regexp.QuoteMeta(pgID)+`[0-9]{18}`)
	if p["status"] == "paid" {
		mask(t, p, "apply_num", `[0-9]{8}`)
		mask(t, p, "receipt_url", `http://payport\.test/receipts/[0-9a-f]{32}`)
	}
	return p
}

// ctStored fetches a payment by imp_uid and compares it with want after masking.
func ctStored(t *testing.T, m *merchant, impUID, pgID, want string) {
	t.Helper()
	got := m.get("/payments/"+impUID).want(200, 0).obj()
	if got["imp_uid"] != impUID {
		t.Fatalf("lookup of %s returned %v", impUID, got["imp_uid"])
	}
	wantJSON(t, ctMask(t, got, pgID), want)
}

// ctDelete sends DELETE path for m.
func ctDelete(m *merchant, path string) *result { return m.b.do("DELETE", path, m.token(), nil) }

// ctNothingStored asserts that the database holds the given numbers of
// payments and billing keys and no webhook.
func ctNothingStored(t *testing.T, b *bundle, payments, customers int) {
	t.Helper()
	if n := b.count("payments"); n != payments {
		t.Fatalf("payments = %d, want %d", n, payments)
	}
	if n := b.count("customers"); n != customers {
		t.Fatalf("customers = %d, want %d", n, customers)
	}
	if rows := b.outbox(); len(rows) != 0 {
		t.Fatalf("outbox = %+v, want none", rows)
	}
}

func TestOneTime_ApprovedFullRecord(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	p := m.post("/subscribe/payments/onetime", ctOnetime("order-1", ctShinhan)).want(200, 0).obj()
	impUID := p["imp_uid"].(string)
	wantJSON(t, ctMask(t, p, "nictest04m"), ctPaidJSON)
	ctStored(t, m, impUID, "nictest04m", ctPaidJSON)
	if got := m.get("/payments/find/order-1").want(200, 0).obj()["imp_uid"]; got != impUID {
		t.Fatalf("find order-1 = %v, want %s", got, impUID)
	}
	ctNothingStored(t, b, 1, 0) // no customer_uid: no billing key; no notice_url: no webhook
}

func TestOneTime_TestCardsCurrencyAndForms(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	cases := []struct {
		name string
		body any
		want string
	}{
		{"KB", ctOnetime("order-1", ctKB), ctRecord(ctPaidJSON, map[string]any{
			"card_code": "381", "card_name": "KB국민카드", "card_number": "555555******4444",
		})},
		{"NHDebit", ctOnetime("order-2", ctNHDebit), ctRecord(ctPaidJSON, map[string]any{
			"merchant_uid": "order-2", "card_code": "371", "card_name": "NH농협카드", "card_number": "400005******5556", "card_type": "1",
		})},
		{"AnyValidNumber", ctOnetime("order-3", ctVisa), ctRecord(ctPaidJSON, map[string]any{
			"merchant_uid": "order-3", "card_code": "361", "card_name": "BC카드", "card_number": "411111******1111",
		})},
		{"USD", ctWith(ctOnetime("order-4", ctShinhan), "currency", "USD", "amount", 10.5, "tax_free", 0.5), ctRecord(ctPaidJSON, map[string]any{
			"merchant_uid": "order-4", "currency": "USD", "amount": json.Number("10.5"),
		})},
		{"USDAsString", ctWith(ctOnetime("order-5", ctShinhan), "currency", "usd", "amount", "7.25"), ctRecord(ctPaidJSON, map[string]any{
			"merchant_uid": "order-5", "currency": "USD", "amount": json.Number("7.25"),
		})},
		{"QuotaAndCustomData", ctWith(ctOnetime("order-6", ctShinhan), "card_quota", 3, "custom_data", map[string]any{"plan": "pro"}, "interest_free_by_merchant", true, "browser_ip", "10.0.0.1"),
			ctRecord(ctPaidJSON, map[string]any{"merchant_uid": "order-6", "card_quota": 3, "custom_data": `{"plan":"pro"}`})},
		{"Form", url.Values{
			"merchant_uid": {" order-7 "}, "amount": {"1000"}, "card_number": {ctShinhan}, "expiry": {"2030-12"},
			"card_quota": {"2"}, "name": {"Notebook"}, "buyer_name": {"Hong"}, "buyer_email": {"hong@example.com"},
			"buyer_tel": {"010-1234-5678"}, "buyer_addr": {"Seoul"}, "buyer_postcode": {"04524"},
		}, ctRecord(ctPaidJSON, map[string]any{"merchant_uid": "order-7", "card_quota": 2})},
		{"MinimalBody", jsonBody{"merchant_uid": "order-8", "amount": 1000, "card_number": ctShinhan, "expiry": "2030-12"}, ctRecord(ctPaidJSON, map[string]any{
			"merchant_uid": "order-8", "name": nil, "buyer_name": nil, "buyer_email": nil, "buyer_tel": nil, "buyer_addr": nil, "buyer_postcode": nil,
		})},
		{"CorporateBirth", ctWith(ctOnetime("order-9", ctShinhan), "birth", "1234567890", "cvc", "123"), ctRecord(ctPaidJSON, map[string]any{"merchant_uid": "order-9"})},
		{"ExpiresThisMonth", ctWith(ctOnetime("order-10", ctShinhan), "expiry", "2026-09"), ctRecord(ctPaidJSON, map[string]any{"merchant_uid": "order-10"})},
	}
	for _, c := range cases {
		p := m.post("/subscribe/payments/onetime", c.body).want(200, 0).obj()
		impUID := p["imp_uid"].(string)
		wantJSON(t, ctMask(t, p, "nictest04m"), c.want)
		ctStored(t, m, impUID, "nictest04m", c.want)
	}
	// a trailing slash is the same endpoint (decisions §1.7)
	m.post("/subscribe/payments/onetime/", ctOnetime("order-11", ctShinhan)).want(200, 0)
}

func TestOneTime_IssuerDeclines(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	cases := []struct {
		card, reason, number string
	}{
		{ctRejected, ctMsgRejected, "400000******0002"},
		{ctNoFunds, ctMsgNoFunds, "400000******9995"},
		{ctOverLimit, ctMsgOverLimit, "400000******0341"},
	}
	for i, c := range cases {
		uid := "order-" + itoa(i+1)
		body := ctWith(ctOnetime(uid, c.card), "customer_uid", "cust-"+itoa(i+1), "notice_url", "https://shop.example/hook")
		p := m.post("/subscribe/payments/onetime", body).want(200, 0).obj()
		impUID := p["imp_uid"].(string)
		// the declined payment still names the customer_uid it was tried with
		want := ctRecord(ctFailedJSON, map[string]any{
			"merchant_uid": uid, "card_number": c.number, "fail_reason": c.reason,
			"customer_uid": "cust-" + itoa(i+1), "customer_uid_usage": "payment",
		})
		wantJSON(t, ctMask(t, p, "nictest04m"), want)
		ctStored(t, m, impUID, "nictest04m", want)
		m.get("/payments/find/"+uid+"/failed").want(200, 0)
		m.get("/subscribe/customers/cust-"+itoa(i+1)).wantError(200, 1, ctMsgNoCustomer("cust-"+itoa(i+1)))
	}
	ctNothingStored(t, b, 3, 0) // no billing key and no webhook for a declined charge

	// a decline does not replace a billing key stored earlier
	m.post("/subscribe/payments/onetime", ctWith(ctOnetime("order-ok", ctShinhan), "customer_uid", "cust-1")).want(200, 0)
	b.clock.Advance(time.Minute)
	m.post("/subscribe/payments/onetime", ctWith(ctOnetime("order-no", ctRejected), "customer_uid", "cust-1", "buyer_name", "Kim")).want(200, 0)
	wantJSON(t, m.get("/subscribe/customers/cust-1").want(200, 0).obj(), ctCustomerJSON)
}

func TestOneTime_CardRejections(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	cases := []struct {
		name, number, expiry, msg string
	}{
		{"NoDashes", "4242424242424242", "2030-12", ctMsgBadNumber},
		{"Spaces", "4242 4242 4242 4242", "2030-12", ctMsgBadNumber},
		{"BadGrouping", "42424-242-4242-4242", "2030-12", ctMsgBadNumber},
		{"ShortGroup", "4242-4242-4242-424", "2030-12", ctMsgBadNumber},
		{"LongGroup", "4242-4242-4242-42424", "2030-12", ctMsgBadNumber},
		{"Letters", "abcd-efgh-ijkl-mnop", "2030-12", ctMsgBadNumber},
		{"Luhn", "4242-4242-4242-4241", "2030-12", ctMsgBadNumber},
		{"LuhnBeforeExpiry", "4242-4242-4242-4241", "2020-01", ctMsgBadNumber},
		{"ExpirySlash", ctShinhan, "2030/12", ctMsgBadExpiry},
		{"ExpiryMMYY", ctShinhan, "12/30", ctMsgBadExpiry},
		{"ExpiryYYMM", ctShinhan, "30-12", ctMsgBadExpiry},
		{"ExpiryOneDigitMonth", ctShinhan, "2030-1", ctMsgBadExpiry},
		{"ExpiryMonth13", ctShinhan, "2030-13", ctMsgBadExpiry},
		{"ExpiryMonth00", ctShinhan, "2030-00", ctMsgBadExpiry},
		{"ExpiryCompact", ctShinhan, "203012", ctMsgBadExpiry},
		{"ExpiryLastMonth", ctShinhan, "2026-08", ctMsgBadExpiry},
		{"ExpiryLongAgo", ctShinhan, "2020-01", ctMsgBadExpiry},
		{"DeclineCardBadExpiry", ctRejected, "2026-08", ctMsgBadExpiry},
	}
	for _, c := range cases {
		body := ctWith(ctOnetime("order-1", c.number), "expiry", c.expiry, "customer_uid", "cust-1", "notice_url", "https://shop.example/hook")
		m.post("/subscribe/payments/onetime", body).wantError(200, -1, c.msg)
		ctNothingStored(t, b, 0, 0)
	}
	// the merchant_uid was not used up by any rejection
	p := m.post("/subscribe/payments/onetime", ctOnetime("order-1", ctShinhan)).want(200, 0).obj()
	wantJSON(t, ctMask(t, p, "nictest04m"), ctPaidJSON)
}

func TestOneTime_ExpiryEndsWithTheMonthInSeoul(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	kst := time.FixedZone("KST", 9*3600)
	october := time.Date(2026, 10, 1, 0, 0, 0, 0, kst).Unix() // 2026-09-30T15:00:00Z
	b.clock.Advance(time.Duration(october-1-testStart) * time.Second)
	m.tok = "" // the first token has expired on the way
	m.post("/subscribe/payments/onetime", ctWith(ctOnetime("order-1", ctShinhan), "expiry", "2026-09")).want(200, 0)
	b.clock.Advance(time.Second) // still September in UTC, October in Seoul
	m.post("/subscribe/payments/onetime", ctWith(ctOnetime("order-2", ctShinhan), "expiry", "2026-09")).wantError(200, -1, ctMsgBadExpiry)
	m.post("/subscribe/customers/cust-1", ctWith(ctIssueBody(ctShinhan), "expiry", "2026-09")).wantError(200, -1, ctMsgBadExpiry)
	m.post("/subscribe/payments/onetime", ctWith(ctOnetime("order-2", ctShinhan), "expiry", "2026-10")).want(200, 0)
}

func TestOneTime_BadInput(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	base := ctWith(ctOnetime("order-1", ctShinhan), "customer_uid", "cust-1", "notice_url", "https://shop.example/hook")
	const (
		krw    = "amount: must be a positive number with at most 0 decimals for KRW"
		birth  = "birth: must be 6 digits (YYMMDD) or a 10-digit business registration number"
		pwd    = "pwd_2digit: must be the first 2 digits of the card password"
		quota  = "card_quota: must be between 0 and 36 months"
		badURL = "notice_url: must be an absolute http or https URL"
	)
	cases := []struct {
		name string
		body any
		msg  string
	}{
		{"MissingMerchantUID", ctWith(base, "merchant_uid", nil), "merchant_uid: required"},
		{"EmptyMerchantUID", ctWith(base, "merchant_uid", ""), "merchant_uid: required"},
		{"MissingAmount", ctWith(base, "amount", nil), "amount: required"},
		{"MissingCardNumber", ctWith(base, "card_number", nil), "card_number: required"},
		{"MissingExpiry", ctWith(base, "expiry", nil), "expiry: required"},
		{"AmountZero", ctWith(base, "amount", 0), krw},
		{"AmountNegative", ctWith(base, "amount", -1000), krw},
		{"AmountDecimalsKRW", ctWith(base, "amount", 1000.5), krw},
		{"AmountDecimalsUSD", ctWith(base, "amount", 10.555, "currency", "USD"), "amount: must be a positive number with at most 2 decimals for USD"},
		{"AmountBool", ctWith(base, "amount", true), "amount: must be a number"},
		{"AmountText", ctWith(base, "amount", "ten"), "amount: must be a number"},
		{"AmountObject", ctWith(base, "amount", map[string]any{"v": 1}), "amount: must be a number"},
		{"Currency", ctWith(base, "currency", "XYZ"), `currency: unsupported currency code "XYZ"`},
		{"BirthShort", ctWith(base, "birth", "9001"), birth},
		{"BirthSeven", ctWith(base, "birth", "9001011"), birth},
		{"BirthEleven", ctWith(base, "birth", "12345678901"), birth},
		{"BirthLetter", ctWith(base, "birth", "9001O1"), birth},
		{"PwdOne", ctWith(base, "pwd_2digit", "1"), pwd},
		{"PwdThree", ctWith(base, "pwd_2digit", "123"), pwd},
		{"PwdLetters", ctWith(base, "pwd_2digit", "ab"), pwd},
		{"CVC", ctWith(base, "cvc", "12"), "cvc: must be 3 or 4 digits"},
		{"TaxFreeAboveAmount", ctWith(base, "tax_free", 1001), "tax_free: must not exceed amount"},
		{"TaxFreeNegative", ctWith(base, "tax_free", -1), "tax_free: must be a number of at least 0 with at most 0 decimals for KRW"},
		{"VATAboveAmount", ctWith(base, "vat_amount", 1001), "vat_amount: must be between 0 and amount"},
		{"QuotaHigh", ctWith(base, "card_quota", 37), quota},
		{"QuotaNegative", ctWith(base, "card_quota", -1), quota},
		{"QuotaFraction", ctWith(base, "card_quota", 1.5), "card_quota: must be an integer"},
		{"QuotaBool", ctWith(base, "card_quota", true), "card_quota: must be a number"},
		{"NoticeURLScheme", ctWith(base, "notice_url", "ftp://shop.example/hook"), badURL},
		{"NoticeURLRelative", ctWith(base, "notice_url", "/hook"), badURL},
		{"MerchantUIDTooLong", ctWith(base, "merchant_uid", strings.Repeat("x", 41)), "merchant_uid: must be at most 40 characters"},
		{"CustomerUIDTooLong", ctWith(base, "customer_uid", strings.Repeat("x", 81)), "customer_uid: must be at most 80 characters"},
		{"BuyerNameTooLong", ctWith(base, "buyer_name", strings.Repeat("홍", 17)), "buyer_name: must be at most 16 characters"},
		{"MerchantUIDType", ctWith(base, "merchant_uid", []any{"order-1"}), "merchant_uid: must be a string"},
		{"CardNumberType", ctWith(base, "card_number", true), "card_number: must be a string"},
		{"CustomerUIDType", ctWith(base, "customer_uid", map[string]any{}), "customer_uid: must be a string"},
		{"PGType", ctWith(base, "pg", []any{"nice"}), "pg: must be a string"},
		{"Malformed", `{"merchant_uid":`, "body: must be a JSON object"},
	}
	for _, c := range cases {
		m.post("/subscribe/payments/onetime", c.body).wantError(400, -1, c.msg)
		ctNothingStored(t, b, 0, 0)
	}
	p := m.post("/subscribe/payments/onetime", ctOnetime("order-1", ctShinhan)).want(200, 0).obj()
	wantJSON(t, ctMask(t, p, "nictest04m"), ctPaidJSON)
}

func TestOneTime_MerchantUIDUsedOnce(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	first := m.post("/subscribe/payments/onetime", ctOnetime("order-1", ctShinhan)).want(200, 0).obj()
	for _, card := range []string{ctShinhan, ctRejected, "4242-4242-4242-4241"} {
		m.post("/subscribe/payments/onetime", ctOnetime("order-1", card)).wantError(200, 1, ctMsgUIDUsed)
	}
	if got := m.get("/payments/find/order-1").want(200, 0).obj()["imp_uid"]; got != first["imp_uid"] {
		t.Fatalf("find order-1 = %v, want the first payment %v", got, first["imp_uid"])
	}

	// a payment made in the checkout window (sandbox) uses up its merchant_uid too
	sandboxPaid(m, "order-2")
	m.post("/subscribe/payments/onetime", ctOnetime("order-2", ctShinhan)).wantError(200, 1, ctMsgUIDUsed)
	m.post("/sandbox/payments", jsonBody{"merchant_uid": "order-3", "amount": 1000, "status": "failed"}).want(200, 0)
	m.post("/subscribe/payments/onetime", ctOnetime("order-3", ctShinhan)).wantError(200, 1, ctMsgUIDUsed)

	// and so does a declined onetime
	m.post("/subscribe/payments/onetime", ctOnetime("order-4", ctNoFunds)).want(200, 0)
	m.post("/subscribe/payments/onetime", ctOnetime("order-4", ctShinhan)).wantError(200, 1, ctMsgUIDUsed)
	if got := m.get("/payments/find/order-4").want(200, 0).obj(); got["status"] != "failed" {
		t.Fatalf("order-4 = %v, want the failed payment", got)
	}
	if n := b.count("payments"); n != 4 {
		t.Fatalf("payments = %d, want 4", n)
	}

	// merchant_uids are per merchant
	other := b.merchant("other")
	other.post("/subscribe/payments/onetime", ctOnetime("order-1", ctShinhan)).want(200, 0)
}

func TestOneTime_ConcurrentSameMerchantUID(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	tok := m.token()
	const n = 20
	results := make([]*result, n)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.do("POST", "/subscribe/payments/onetime", tok, ctWith(ctOnetime("order-1", ctShinhan), "customer_uid", "cust-"+itoa(i)))
		}()
	}
	wg.Wait()
	var paid map[string]any
	refused := 0
	for _, r := range results {
		if r.status == 200 && r.body["code"] == json.Number("0") {
			if paid != nil {
				t.Fatalf("two requests were charged: %v and %v", paid["imp_uid"], r.obj()["imp_uid"])
			}
			paid = r.want(200, 0).obj()
			continue
		}
		r.wantError(200, 1, ctMsgUIDUsed)
		refused++
	}
	if paid == nil || refused != n-1 {
		t.Fatalf("paid %v, refused %d; want one payment and %d refusals", paid != nil, refused, n-1)
	}
	if paid["status"] != "paid" {
		t.Fatalf("the charged payment is %v", paid["status"])
	}
	found := m.get("/payments/find/order-1").want(200, 0).obj()
	if found["imp_uid"] != paid["imp_uid"] {
		t.Fatalf("find order-1 = %v, want %v", found["imp_uid"], paid["imp_uid"])
	}
	if p, c := b.count("payments"), b.count("customers"); p != 1 || c != 1 {
		t.Fatalf("payments = %d, customers = %d; want 1 and 1", p, c)
	}
	m.get("/subscribe/customers/"+paid["customer_uid"].(string)).want(200, 0)
}

func TestOneTime_StoresAndReplacesBillingKey(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	p := m.post("/subscribe/payments/onetime", ctWith(ctOnetime("order-1", ctShinhan), "customer_uid", "cust-1")).want(200, 0).obj()
	wantJSON(t, ctMask(t, p, "nictest04m"), ctRecord(ctPaidJSON, map[string]any{"customer_uid": "cust-1", "customer_uid_usage": "payment"}))
	wantJSON(t, m.get("/subscribe/customers/cust-1").want(200, 0).obj(), ctCustomerJSON)
	m.get("/subscribe/customers/cust-1/").want(200, 0)

	b.clock.Advance(10 * time.Minute)
	second := ctWith(ctOnetime("order-2", ctKB), "customer_uid", "cust-1", "buyer_name", "Kim", "buyer_tel", "010-9999-0000",
		"buyer_email", "kim@example.com", "buyer_addr", "Busan", "buyer_postcode", "48058")
	p = m.post("/subscribe/payments/onetime", second).want(200, 0).obj()
	wantJSON(t, ctMask(t, p, "nictest04m"), ctRecord(ctPaidJSON, map[string]any{
		"merchant_uid": "order-2", "card_code": "381", "card_name": "KB국민카드", "card_number": "555555******4444",
		"buyer_name": "Kim", "buyer_tel": "010-9999-0000", "buyer_email": "kim@example.com", "buyer_addr": "Busan",
		"buyer_postcode": "48058", "started_at": 1790000600, "paid_at": 1790000600,
		"customer_uid": "cust-1", "customer_uid_usage": "payment",
	}))
	replaced := ctRecord(ctCustomerJSON, map[string]any{
		"card_code": "381", "card_name": "KB국민카드", "card_number": "555555******4444", "customer_name": "Kim",
		"customer_tel": "010-9999-0000", "customer_email": "kim@example.com", "customer_addr": "Busan",
		"customer_postcode": "48058", "updated": 1790000600,
	})
	wantJSON(t, m.get("/subscribe/customers/cust-1").want(200, 0).obj(), replaced)
	if n := b.count("customers"); n != 1 {
		t.Fatalf("customers = %d, want 1", n)
	}

	// the key charges the new card
	again := m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-3", "amount": 500}).want(200, 0).obj()
	if again["card_number"] != "555555******4444" || again["buyer_name"] != "Kim" {
		t.Fatalf("again charged %v for %v", again["card_number"], again["buyer_name"])
	}

	// a customer_uid in the body may hold any character; the path finds it escaped
	uid := "고객 1@월간"
	m.post("/subscribe/payments/onetime", ctWith(ctOnetime("order-4", ctShinhan), "customer_uid", uid)).want(200, 0)
	got := m.get("/subscribe/customers/"+url.PathEscape(uid)).want(200, 0).obj()
	if got["customer_uid"] != uid {
		t.Fatalf("customer_uid = %v, want %q", got["customer_uid"], uid)
	}
}

func TestPGParameter(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	m := b.merchant("shop")
	pay := func(uid string, kv ...any) *result {
		return m.post("/subscribe/payments/onetime", ctWith(ctOnetime(uid, ctShinhan), kv...))
	}
	charged := func(uid, provider, pgID string, kv ...any) {
		t.Helper()
		p := pay(uid, kv...).want(200, 0).obj()
		wantJSON(t, ctMask(t, p, pgID), ctRecord(ctPaidJSON, map[string]any{"merchant_uid": uid, "pg_provider": provider, "pg_id": pgID}))
	}

	// defaults: nice (non-auth) and payco (checkout window only)
	charged("o-1", "nice", "nictest04m")
	charged("o-2", "nice", "nictest04m", "pg", "nice")
	charged("o-3", "nice", "nictest04m", "pg", "nice.nictest04m")
	pay("o-4", "pg", "acme").wantError(200, 1, "등록되지 않은 PG설정입니다: acme")
	pay("o-4", "pg", "nice.other").wantError(200, 1, "등록되지 않은 PG설정입니다: nice.other")
	pay("o-4", "pg", "kcp").wantError(200, 1, "등록되지 않은 PG설정입니다: kcp") // known provider, but no setting
	pay("o-4", "pg", "payco").wantError(200, 1, ctMsgNoNonAuth)
	pay("o-4", "pg", "payco.PARTNERTEST").wantError(200, 1, ctMsgNoNonAuth)
	m.post("/subscribe/customers/cust-x", ctWith(ctIssueBody(ctShinhan), "pg", "payco")).wantError(200, 1, ctMsgNoNonAuth)
	m.post("/subscribe/customers/cust-x", ctWith(ctIssueBody(ctShinhan), "pg", "acme")).wantError(200, 1, "등록되지 않은 PG설정입니다: acme")

	// two non-auth settings: pg is required
	if _, err := b.svc.AddPGSetting(ctx, m.cred.IMPKey, "kcp", ""); err != nil {
		t.Fatal(err)
	}
	pay("o-4").wantError(200, 1, ctMsgAmbiguous)
	m.post("/subscribe/customers/cust-x", ctIssueBody(ctShinhan)).wantError(200, 1, ctMsgAmbiguous)
	charged("o-4", "kcp", "T0000", "pg", "kcp")
	charged("o-5", "nice", "nictest04m", "pg", "nice")

	// two settings of one provider: pg names the pg_id
	if _, err := b.svc.AddPGSetting(ctx, m.cred.IMPKey, "kcp", "T0000002"); err != nil {
		t.Fatal(err)
	}
	pay("o-6", "pg", "kcp").wantError(200, 1, "pg 파라메터를 kcp.{pg_id} 형식으로 지정해주세요.")
	pay("o-6").wantError(200, 1, ctMsgAmbiguous)
	m.post("/subscribe/customers/cust-x", ctWith(ctIssueBody(ctShinhan), "pg", "kcp")).wantError(200, 1, "pg 파라메터를 kcp.{pg_id} 형식으로 지정해주세요.")
	charged("o-6", "kcp", "T0000002", "pg", "kcp.T0000002")
	charged("o-7", "kcp", "T0000", "pg", "kcp.T0000")
	if n := b.count("customers"); n != 0 {
		t.Fatalf("customers = %d after refusals, want 0", n)
	}

	// a billing key remembers its setting, and again charges through it
	c := m.post("/subscribe/customers/cust-1", ctWith(ctIssueBody(ctShinhan), "pg", "kcp.T0000002")).want(200, 0).obj()
	wantJSON(t, c, ctRecord(ctCustomerJSON, map[string]any{"pg_provider": "kcp", "pg_id": "T0000002"}))
	p := m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "o-8", "amount": 1000, "name": "Notebook"}).want(200, 0).obj()
	wantJSON(t, ctMask(t, p, "T0000002"), ctRecord(ctPaidJSON, map[string]any{
		"merchant_uid": "o-8", "pg_provider": "kcp", "pg_id": "T0000002", "customer_uid": "cust-1", "customer_uid_usage": "payment",
	}))

	// the refused requests stored nothing and left o-4 .. o-7 to the charges above
	if n := b.count("payments"); n != 8 {
		t.Fatalf("payments = %d, want 8", n)
	}

	// no non-auth setting at all
	lone := b.merchant("checkout-only")
	if err := b.svc.RemovePGSetting(ctx, lone.cred.IMPKey, "nice", "nictest04m"); err != nil {
		t.Fatal(err)
	}
	for _, pg := range []string{"", "payco"} {
		lone.post("/subscribe/payments/onetime", ctWith(ctOnetime("o-1", ctShinhan), "pg", pg)).wantError(200, 1, ctMsgNoNonAuth)
		lone.post("/subscribe/customers/cust-1", ctWith(ctIssueBody(ctShinhan), "pg", pg)).wantError(200, 1, ctMsgNoNonAuth)
	}
	lone.post("/subscribe/payments/onetime", ctWith(ctOnetime("o-1", ctShinhan), "pg", "nice")).wantError(200, 1, "등록되지 않은 PG설정입니다: nice")
	if n := b.count("payments"); n != 8 {
		t.Fatalf("payments = %d, want 8", n)
	}
}

func TestCustomer_IssueGetDelete(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	c := m.post("/subscribe/customers/cust-1", ctIssueBody(ctShinhan)).want(200, 0).obj()
	wantKeys(t, c, "customer_uid", "pg_provider", "pg_id", "card_name", "card_code", "card_number", "card_type",
		"customer_name", "customer_tel", "customer_email", "customer_addr", "customer_postcode", "inserted", "updated")
	wantJSON(t, c, ctCustomerJSON)
	wantJSON(t, m.get("/subscribe/customers/cust-1").want(200, 0).obj(), ctCustomerJSON)

	// minimal registration: customer fields absent are null
	c = m.post("/subscribe/customers/cust-2", url.Values{"card_number": {ctNHDebit}, "expiry": {"2030-12"}}).want(200, 0).obj()
	wantJSON(t, c, ctRecord(ctCustomerJSON, map[string]any{
		"customer_uid": "cust-2", "card_code": "371", "card_name": "NH농협카드", "card_number": "400005******5556", "card_type": "1",
		"customer_name": nil, "customer_tel": nil, "customer_email": nil, "customer_addr": nil, "customer_postcode": nil,
	}))

	// the card that declines every charge registers fine
	overLimit := ctRecord(ctCustomerJSON, map[string]any{
		"customer_uid": "cust-3", "card_code": "361", "card_name": "BC카드", "card_number": "400000******0341",
	})
	wantJSON(t, m.post("/subscribe/customers/cust-3", ctIssueBody(ctOverLimit)).want(200, 0).obj(), overLimit)

	// cards the issuer refuses, and cards the gateway rejects, store nothing
	for _, c := range []struct{ card, expiry, msg string }{
		{ctRejected, "2030-12", ctMsgRejected},
		{ctNoFunds, "2030-12", ctMsgNoFunds},
		{"4242-4242-4242-4241", "2030-12", ctMsgBadNumber},
		{"4242424242424242", "2030-12", ctMsgBadNumber},
		{ctShinhan, "2026-08", ctMsgBadExpiry},
		{ctShinhan, "2030/12", ctMsgBadExpiry},
	} {
		m.post("/subscribe/customers/cust-4", ctWith(ctIssueBody(c.card), "expiry", c.expiry)).wantError(200, -1, c.msg)
		m.get("/subscribe/customers/cust-4").wantError(200, 1, ctMsgNoCustomer("cust-4"))
		// a refused card does not replace a stored key either
		m.post("/subscribe/customers/cust-1", ctWith(ctIssueBody(c.card), "expiry", c.expiry)).wantError(200, -1, c.msg)
	}
	wantJSON(t, m.get("/subscribe/customers/cust-1").want(200, 0).obj(), ctCustomerJSON)
	for _, c := range []struct {
		name string
		body any
		msg  string
	}{
		{"MissingCard", ctWith(ctIssueBody(ctShinhan), "card_number", nil), "card_number: required"},
		{"MissingExpiry", ctWith(ctIssueBody(ctShinhan), "expiry", nil), "expiry: required"},
		{"Birth", ctWith(ctIssueBody(ctShinhan), "birth", "123"), "birth: must be 6 digits (YYMMDD) or a 10-digit business registration number"},
		{"Pwd", ctWith(ctIssueBody(ctShinhan), "pwd_2digit", "1"), "pwd_2digit: must be the first 2 digits of the card password"},
		{"NameTooLong", ctWith(ctIssueBody(ctShinhan), "customer_name", strings.Repeat("홍", 17)), "customer_name: must be at most 16 characters"},
		{"PostcodeTooLong", ctWith(ctIssueBody(ctShinhan), "customer_postcode", "123456789"), "customer_postcode: must be at most 8 characters"},
		{"NameType", ctWith(ctIssueBody(ctShinhan), "customer_name", true), "customer_name: must be a string"},
	} {
		m.post("/subscribe/customers/cust-4", c.body).wantError(400, -1, c.msg)
	}
	m.post("/subscribe/customers/"+strings.Repeat("x", 81), ctIssueBody(ctShinhan)).wantError(400, -1, "customer_uid: must be at most 80 characters")
	if n, p := b.count("customers"), b.count("payments"); n != 3 || p != 0 {
		t.Fatalf("customers = %d, payments = %d; want 3 and 0", n, p)
	}

	// registering again replaces the key and keeps its inserted time
	b.clock.Advance(5 * time.Minute)
	c = m.post("/subscribe/customers/cust-1", ctWith(ctIssueBody(ctKB), "customer_name", "Kim")).want(200, 0).obj()
	replaced := ctRecord(ctCustomerJSON, map[string]any{
		"card_code": "381", "card_name": "KB국민카드", "card_number": "555555******4444", "customer_name": "Kim", "updated": 1790000300,
	})
	wantJSON(t, c, replaced)

	// unknown, delete, deleted
	m.get("/subscribe/customers/nobody").wantError(200, 1, ctMsgNoCustomer("nobody"))
	ctDelete(m, "/subscribe/customers/nobody").wantError(200, 1, ctMsgNoCustomer("nobody"))
	b.clock.Advance(time.Minute)
	wantJSON(t, ctDelete(m, "/subscribe/customers/cust-1?reason=customer+left&extra[requester]=customer").want(200, 0).obj(), replaced)
	m.get("/subscribe/customers/cust-1").wantError(200, 1, ctMsgNoCustomer("cust-1"))
	ctDelete(m, "/subscribe/customers/cust-1").wantError(200, 1, ctMsgNoCustomer("cust-1"))
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-1", "amount": 1000}).wantError(200, -1, ctMsgUnknownBuyer)
	if n, p := b.count("customers"), b.count("payments"); n != 2 || p != 0 {
		t.Fatalf("customers = %d, payments = %d; want 2 and 0", n, p)
	}
	// the refused again did not use up order-1; a deleted customer_uid may be registered anew
	m.post("/subscribe/customers/cust-1", ctIssueBody(ctShinhan)).want(200, 0)
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-1", "amount": 1000}).want(200, 0)
}

func TestAgain(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.post("/subscribe/customers/cust-1", ctIssueBody(ctShinhan)).want(200, 0)
	m.post("/subscribe/customers/limit", ctIssueBody(ctOverLimit)).want(200, 0)
	b.clock.Advance(time.Minute)

	// buyer fields default to the customer's
	p := m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-1", "amount": 1000, "name": "Notebook"}).want(200, 0).obj()
	impUID := p["imp_uid"].(string)
	want := ctRecord(ctPaidJSON, map[string]any{
		"started_at": 1790000060, "paid_at": 1790000060, "customer_uid": "cust-1", "customer_uid_usage": "payment",
	})
	wantJSON(t, ctMask(t, p, "nictest04m"), want)
	ctStored(t, m, impUID, "nictest04m", want)

	// given buyer fields win; the others still default
	p = m.post("/subscribe/payments/again", url.Values{
		"customer_uid": {"cust-1"}, "merchant_uid": {"order-2"}, "amount": {"10.50"}, "currency": {"USD"},
		"buyer_name": {"Kim"}, "buyer_postcode": {"48058"}, "card_quota": {"6"}, "custom_data": {`{"n":1}`},
	}).want(200, 0).obj()
	wantJSON(t, ctMask(t, p, "nictest04m"), ctRecord(ctPaidJSON, map[string]any{
		"merchant_uid": "order-2", "amount": json.Number("10.5"), "currency": "USD", "name": nil, "buyer_name": "Kim",
		"buyer_postcode": "48058", "card_quota": 6, "custom_data": `{"n":1}`, "started_at": 1790000060, "paid_at": 1790000060,
		"customer_uid": "cust-1", "customer_uid_usage": "payment",
	}))

	// a key of the over-limit card: a failed payment, code 0
	p = m.post("/subscribe/payments/again", jsonBody{"customer_uid": "limit", "merchant_uid": "order-3", "amount": 1000, "name": "Notebook", "notice_url": "https://shop.example/hook"}).want(200, 0).obj()
	wantJSON(t, ctMask(t, p, "nictest04m"), ctRecord(ctFailedJSON, map[string]any{
		"merchant_uid": "order-3", "card_number": "400000******0341", "fail_reason": ctMsgOverLimit,
		"started_at": 1790000060, "failed_at": 1790000060, "customer_uid": "limit", "customer_uid_usage": "payment",
	}))
	if rows := b.outbox(); len(rows) != 0 {
		t.Fatalf("a declined again queued webhooks: %+v", rows)
	}

	// refusals
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "nobody", "merchant_uid": "order-4", "amount": 1000}).wantError(200, -1, ctMsgUnknownBuyer)
	m.post("/subscribe/payments/again", jsonBody{"merchant_uid": "order-4", "amount": 1000}).wantError(400, -1, "customer_uid: required")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "", "merchant_uid": "order-4", "amount": 1000}).wantError(400, -1, "customer_uid: required")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "amount": 1000}).wantError(400, -1, "merchant_uid: required")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-4"}).wantError(400, -1, "amount: required")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-4", "amount": 0}).wantError(400, -1, "amount: must be a positive number with at most 0 decimals for KRW")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-4", "amount": 1000, "card_quota": 40}).wantError(400, -1, "card_quota: must be between 0 and 36 months")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-4", "amount": 1000, "tax_free": 2000}).wantError(400, -1, "tax_free: must not exceed amount")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-4", "amount": 1000, "notice_url": "hook"}).wantError(400, -1, "notice_url: must be an absolute http or https URL")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": true, "merchant_uid": "order-4", "amount": 1000}).wantError(400, -1, "customer_uid: must be a string")
	for _, uid := range []string{"order-1", "order-3"} { // used by a paid and by a failed again
		m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": uid, "amount": 1000}).wantError(200, 1, ctMsgUIDUsed)
	}
	m.post("/subscribe/payments/onetime", ctOnetime("order-5", ctShinhan)).want(200, 0)
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-5", "amount": 1000}).wantError(200, 1, ctMsgUIDUsed)
	sandboxPaid(m, "order-6")
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-6", "amount": 1000}).wantError(200, 1, ctMsgUIDUsed)
	if n := b.count("payments"); n != 5 {
		t.Fatalf("payments = %d, want 5", n)
	}
	// none of the refusals used up order-4
	m.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-4", "amount": 1000}).want(200, 0)
}

func TestCustomer_MerchantIsolation(t *testing.T) {
	b := setup(t)
	a, other := b.merchant("a"), b.merchant("b")
	a.post("/subscribe/customers/cust-1", ctIssueBody(ctShinhan)).want(200, 0)

	other.get("/subscribe/customers/cust-1").wantError(200, 1, ctMsgNoCustomer("cust-1"))
	ctDelete(other, "/subscribe/customers/cust-1").wantError(200, 1, ctMsgNoCustomer("cust-1"))
	other.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-1", "amount": 1000}).wantError(200, -1, ctMsgUnknownBuyer)
	if n := b.count("payments"); n != 0 {
		t.Fatalf("payments = %d, want 0", n)
	}

	// B's own key of the same name is B's alone
	other.post("/subscribe/customers/cust-1", ctWith(ctIssueBody(ctKB), "customer_name", "Kim")).want(200, 0)
	other.post("/subscribe/payments/onetime", ctWith(ctOnetime("order-2", ctNHDebit), "customer_uid", "cust-1")).want(200, 0)
	ctDelete(other, "/subscribe/customers/cust-1").want(200, 0)

	wantJSON(t, a.get("/subscribe/customers/cust-1").want(200, 0).obj(), ctCustomerJSON)
	p := a.post("/subscribe/payments/again", jsonBody{"customer_uid": "cust-1", "merchant_uid": "order-1", "amount": 1000}).want(200, 0).obj()
	if p["card_number"] != "424242******4242" || p["buyer_name"] != "Hong" {
		t.Fatalf("A's again charged %v for %v", p["card_number"], p["buyer_name"])
	}
	// and B cannot see A's payment
	other.get("/payments/"+p["imp_uid"].(string)).wantError(404, 1, "존재하지 않는 결제정보입니다.")
}

func TestCardEndpoints_NeedAToken(t *testing.T) {
	b := setup(t)
	b.merchant("shop")
	for _, e := range []struct{ method, path string }{
		{"POST", "/subscribe/payments/onetime"},
		{"POST", "/subscribe/payments/again"},
		{"GET", "/subscribe/customers/cust-1"},
		{"POST", "/subscribe/customers/cust-1"},
		{"DELETE", "/subscribe/customers/cust-1"},
	} {
		b.do(e.method, e.path, "", jsonBody{"merchant_uid": ""}).wantError(401, -1, "Unauthorized")
	}
}

func TestWebhookOutbox_OneTimeAndAgain(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	m := b.merchant("shop")
	const hook, notify = "https://shop.example/hook", "https://shop.example/notify"
	var want []outboxRow
	check := func(step string) {
		t.Helper()
		rows := b.outbox()
		for i := range rows {
			if !regexp.MustCompile(`^msg_[0-9a-f]{32}$`).MatchString(rows[i].WebhookID) {
				t.Fatalf("%s: webhook_id = %q", step, rows[i].WebhookID)
			}
			rows[i].WebhookID = ""
		}
		if len(rows) != len(want) {
			t.Fatalf("%s: outbox = %+v, want %+v", step, rows, want)
		}
		for i := range rows {
			if rows[i] != want[i] {
				t.Fatalf("%s: outbox row %d = %+v, want %+v", step, i, rows[i], want[i])
			}
		}
	}
	paid := func(url string, r *result) {
		t.Helper()
		p := r.want(200, 0).obj()
		want = append(want, outboxRow{URL: url, Type: "paid", IMPUID: p["imp_uid"].(string), MerchantUID: p["merchant_uid"].(string),
			Status: "paid", State: "pending", MerchantID: m.cred.MerchantID})
	}
	onetime := func(uid, card, noticeURL string) *result {
		body := ctOnetime(uid, card)
		if noticeURL != "" {
			body["notice_url"] = noticeURL
		}
		return m.post("/subscribe/payments/onetime", body)
	}
	again := func(uid, customer, noticeURL string) *result {
		body := jsonBody{"customer_uid": customer, "merchant_uid": uid, "amount": 1000}
		if noticeURL != "" {
			body["notice_url"] = noticeURL
		}
		return m.post("/subscribe/payments/again", body)
	}

	// the request's notice_url
	paid(hook, onetime("o-1", ctShinhan, hook))
	check("onetime with notice_url")
	// neither notice_url nor Notification URL: nothing
	onetime("o-2", ctShinhan, "").want(200, 0)
	m.post("/subscribe/customers/cust-1", ctIssueBody(ctShinhan)).want(200, 0)
	m.post("/subscribe/customers/limit", ctIssueBody(ctOverLimit)).want(200, 0)
	again("o-3", "cust-1", "").want(200, 0)
	check("no URL")
	paid(hook, again("o-4", "cust-1", hook))
	check("again with notice_url")
	// declined charges and refusals send nothing
	onetime("o-5", ctRejected, hook).want(200, 0)
	again("o-6", "limit", hook).want(200, 0)
	onetime("o-1", ctShinhan, hook).wantError(200, 1, ctMsgUIDUsed)
	onetime("o-7", "4242-4242-4242-4241", hook).wantError(200, -1, ctMsgBadNumber)
	again("o-7", "nobody", hook).wantError(200, -1, ctMsgUnknownBuyer)
	check("declined and refused")

	// the merchant's Notification URL, unless the request names one
	u := notify
	if _, err := b.svc.UpdateMerchantSettings(ctx, m.cred.IMPKey, service.MerchantSettings{NotificationURL: &u}); err != nil {
		t.Fatal(err)
	}
	paid(notify, onetime("o-8", ctShinhan, ""))
	paid(hook, onetime("o-9", ctKB, hook))
	paid(notify, again("o-10", "cust-1", ""))
	paid(hook, again("o-11", "cust-1", hook))
	onetime("o-12", ctNoFunds, "").want(200, 0)
	again("o-13", "limit", "").want(200, 0)
	check("Notification URL")

	// cleared again: nothing
	u = ""
	if _, err := b.svc.UpdateMerchantSettings(ctx, m.cred.IMPKey, service.MerchantSettings{NotificationURL: &u}); err != nil {
		t.Fatal(err)
	}
	onetime("o-14", ctShinhan, "").want(200, 0)
	again("o-15", "cust-1", "").want(200, 0)
	check("cleared")

	// another merchant's Notification URL is not this one's
	other := b.merchant("other")
	u = "https://other.example/notify"
	if _, err := b.svc.UpdateMerchantSettings(ctx, other.cred.IMPKey, service.MerchantSettings{NotificationURL: &u}); err != nil {
		t.Fatal(err)
	}
	onetime("o-16", ctShinhan, "").want(200, 0)
	check("other merchant's setting")
}

// TestCardNumbers_NeverStored runs every card operation with every test
// card, then reads the database files byte by byte: no full card number
// may appear, with or without dashes (decisions §4.3). Nor in the log.
func TestCardNumbers_NeverStored(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	cards := []string{ctShinhan, ctKB, ctNHDebit, ctRejected, ctNoFunds, ctOverLimit, ctVisa, "4242-4242-4242-4241", "5555-5555-5555-4445"}
	for i, card := range cards {
		n := itoa(i)
		m.post("/subscribe/payments/onetime", ctOnetime("plain-"+n, card))
		m.post("/subscribe/payments/onetime", ctWith(ctOnetime("key-"+n, card), "customer_uid", "onetime-"+n))
		m.post("/subscribe/payments/onetime", url.Values{"merchant_uid": {"form-" + n}, "amount": {"1000"}, "card_number": {card}, "expiry": {"2030-12"}, "customer_uid": {"form-" + n}})
		m.post("/subscribe/payments/onetime", ctWith(ctOnetime("expired-"+n, card), "expiry", "2026-08"))
		m.post("/subscribe/payments/onetime", ctWith(ctOnetime("bad-"+n, card), "birth", "1"))
		m.post("/subscribe/customers/issued-"+n, ctIssueBody(card))
		m.post("/subscribe/payments/again", jsonBody{"customer_uid": "issued-" + n, "merchant_uid": "again-" + n, "amount": 1000})
		m.post("/subscribe/payments/again", jsonBody{"customer_uid": "onetime-" + n, "merchant_uid": "again2-" + n, "amount": 1000})
	}
	ctDelete(m, "/subscribe/customers/issued-0").want(200, 0)
	if n := b.count("customers"); n < 8 {
		t.Fatalf("customers = %d: the operations above did not run", n)
	}

	data := b.dump()
	if !bytes.Contains(data, []byte("424242******4242")) || !bytes.Contains(data, []byte("400000******0341")) {
		t.Fatalf("the masked numbers are not in the database files: is this the right file?")
	}
	logs := b.logs.String()
	for _, card := range cards {
		for _, form := range []string{card, strings.ReplaceAll(card, "-", "")} {
			if bytes.Contains(data, []byte(form)) {
				t.Errorf("the database holds the card number %s", form)
			}
			if strings.Contains(logs, form) {
				t.Errorf("the request log holds the card number %s", form)
			}
		}
	}
}
