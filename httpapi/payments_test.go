package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// paidCardJSON is the full record of a paid card payment made with
// sandboxPaid below, with its random identifiers masked.
const paidCardJSON = `{
 "imp_uid":"<imp_uid>","merchant_uid":"order-1","pay_method":"card","channel":"pc",
 "pg_provider":"nice","emb_pg_provider":null,"pg_tid":"<pg_tid>","pg_id":"nictest04m","escrow":false,
 "apply_num":"<apply_num>","bank_code":null,"bank_name":null,"card_code":"366","card_name":"신한카드",
 "card_quota":0,"card_number":"424242******4242","card_type":"0","vbank_code":null,"vbank_name":null,
 "vbank_num":null,"vbank_holder":null,"vbank_date":0,"vbank_issued_at":0,"name":"Notebook",
 "amount":1000,"cancel_amount":0,"currency":"KRW","buyer_name":"Hong","buyer_email":"hong@example.com",
 "buyer_tel":"010-1234-5678","buyer_addr":null,"buyer_postcode":null,"custom_data":"{\"plan\":\"pro\"}",
 "user_agent":null,"status":"paid","started_at":1790000000,"paid_at":1790000000,"failed_at":0,
 "cancelled_at":0,"fail_reason":null,"cancel_reason":null,"receipt_url":"<receipt_url>",
 "cancel_history":[],"cancel_receipt_urls":[],"cash_receipt_issued":false,"customer_uid":null,
 "customer_uid_usage":null}`

func sandboxPaid(m *merchant, merchantUID string) map[string]any {
	m.b.t.Helper()
	return m.post("/sandbox/payments", jsonBody{
		"merchant_uid": merchantUID, "amount": 1000, "name": "Notebook", "buyer_name": "Hong",
		"buyer_email": "hong@example.com", "buyer_tel": "010-1234-5678", "custom_data": map[string]any{"plan": "pro"},
	}).want(200, 0).obj()
}

func maskPayment(t *testing.T, p map[string]any) map[string]any {
	t.Helper()
	mask(t, p, "imp_uid", `imp_[0-9]{12}`)
	mask(t, p, "pg_tid", `nictest04m[0-9]{18}`)
	mask(t, p, "apply_num", `[0-9]{8}`)
	mask(t, p, "receipt_url", `http://payport\.test/receipts/[0-9a-f]{32}`)
	return p
}

func TestSandboxPayment_ReturnsFullRecord(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	p := sandboxPaid(m, "order-1")
	impUID := p["imp_uid"].(string)
	wantJSON(t, maskPayment(t, p), paidCardJSON)

	got := m.get("/payments/"+impUID).want(200, 0).obj()
	if got["imp_uid"] != impUID {
		t.Fatalf("lookup returned %v", got["imp_uid"])
	}
	wantJSON(t, maskPayment(t, got), paidCardJSON)
}

func TestSandboxPayment_StatusesAndMeans(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	cancelled := m.post("/sandbox/payments", url.Values{
		"merchant_uid": {"order-c"}, "amount": {"10.5"}, "currency": {"USD"}, "status": {"cancelled"},
		"cancel_reason": {"customer asked"}, "channel": {"mobile"}, "pg_provider": {"kcp"},
	}).want(200, 0).obj()
	for field, want := range map[string]any{
		"status": "cancelled", "amount": json.Number("10.5"), "cancel_amount": json.Number("10.5"), "currency": "USD",
		"cancelled_at": json.Number("1790000000"), "cancel_reason": "customer asked", "channel": "mobile",
		"pg_provider": "kcp", "pg_id": "T0000",
	} {
		if cancelled[field] != want {
			t.Errorf("cancelled %s = %#v, want %#v", field, cancelled[field], want)
		}
	}
	hist := cancelled["cancel_history"].([]any)
	if len(hist) != 1 {
		t.Fatalf("cancel_history = %v", hist)
	}
	entry := hist[0].(map[string]any)
	mask(t, entry, "pg_tid", `T0000[0-9]{18}`)
	mask(t, entry, "receipt_url", `http://payport\.test/receipts/[0-9a-f]{32}`)
	wantJSON(t, entry, `{"pg_tid":"<pg_tid>","amount":10.5,"cancelled_at":1790000000,"reason":"customer asked","receipt_url":"<receipt_url>"}`)
	if urls := cancelled["cancel_receipt_urls"].([]any); len(urls) != 1 {
		t.Fatalf("cancel_receipt_urls = %v", urls)
	}

	failed := m.post("/sandbox/payments", jsonBody{"merchant_uid": "order-f", "amount": "500", "status": "failed", "fail_reason": "limit"}).want(200, 0).obj()
	if failed["status"] != "failed" || failed["failed_at"] != json.Number("1790000000") || failed["fail_reason"] != "limit" || failed["paid_at"] != json.Number("0") || failed["receipt_url"] != nil || failed["apply_num"] != nil {
		t.Fatalf("failed payment = %v", failed)
	}
	vbank := m.post("/sandbox/payments", jsonBody{"merchant_uid": "order-v", "amount": 700, "status": "ready", "pay_method": "vbank"}).want(200, 0).obj()
	if vbank["vbank_code"] != "004" || vbank["vbank_name"] != "KB국민은행" || vbank["vbank_issued_at"] != json.Number("1790000000") || vbank["vbank_date"] != json.Number("1790259200") || vbank["paid_at"] != json.Number("0") {
		t.Fatalf("vbank payment = %v", vbank)
	}
}

func TestSandboxPayment_BadInput(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	cases := []struct {
		name string
		body any
		msg  string
	}{
		{"MissingMerchantUID", jsonBody{"amount": 1000}, "merchant_uid: required"},
		{"MissingAmount", jsonBody{"merchant_uid": "o"}, "amount: required"},
		{"AmountNotNumber", jsonBody{"merchant_uid": "o", "amount": "ten"}, "amount: must be a number"},
		{"AmountBool", jsonBody{"merchant_uid": "o", "amount": true}, "amount: must be a number"},
		{"AmountZero", jsonBody{"merchant_uid": "o", "amount": 0}, "amount: must be a positive number with at most 0 decimals for KRW"},
		{"AmountDecimalsKRW", jsonBody{"merchant_uid": "o", "amount": 10.5}, "amount: must be a positive number with at most 0 decimals for KRW"},
		{"AmountDecimalsUSD", jsonBody{"merchant_uid": "o", "amount": 10.555, "currency": "USD"}, "amount: must be a positive number with at most 2 decimals for USD"},
		{"Currency", jsonBody{"merchant_uid": "o", "amount": 1, "currency": "XYZ"}, `currency: unsupported currency code "XYZ"`},
		{"Status", jsonBody{"merchant_uid": "o", "amount": 1, "status": "done"}, "status: must be one of ready, paid, failed, cancelled"},
		{"PayMethod", jsonBody{"merchant_uid": "o", "amount": 1, "pay_method": "gold"}, `pay_method: unknown pay_method "gold"`},
		{"PGProvider", jsonBody{"merchant_uid": "o", "amount": 1, "pg_provider": "acme"}, `pg_provider: unknown pg_provider "acme"`},
		{"Channel", jsonBody{"merchant_uid": "o", "amount": 1, "channel": "api"}, "channel: must be pc or mobile"},
		{"MerchantUIDTooLong", jsonBody{"merchant_uid": strings.Repeat("x", 41), "amount": 1}, "merchant_uid: must be at most 40 characters"},
		{"BuyerNameTooLong", jsonBody{"merchant_uid": "o", "amount": 1, "buyer_name": strings.Repeat("홍", 17)}, "buyer_name: must be at most 16 characters"},
		{"MerchantUIDType", jsonBody{"merchant_uid": []any{"a"}, "amount": 1}, "merchant_uid: must be a string"},
		{"StartedAtType", jsonBody{"merchant_uid": "o", "amount": 1, "started_at": "soon"}, "started_at: must be a number"},
		{"PaidBeforeStart", jsonBody{"merchant_uid": "o", "amount": 1, "started_at": 200, "paid_at": 100}, "paid_at: must not be before started_at"},
		{"NotAnObject", `[1,2]`, "body: must be a JSON object"},
		{"TwoObjects", `{"a":1}{"b":2}`, "body: must hold exactly one JSON object"},
	}
	for _, c := range cases {
		m.post("/sandbox/payments", c.body).wantError(400, -1, c.msg)
	}
	m.get("/payments/find/o").wantError(404, 1, "존재하지 않는 결제정보입니다.") // nothing was written
}

func TestPayment_NotFoundAndIsolation(t *testing.T) {
	b := setup(t)
	a, other := b.merchant("a"), b.merchant("b")
	p := sandboxPaid(a, "order-1")
	impUID := p["imp_uid"].(string)
	for _, path := range []string{
		"/payments/" + impUID, "/payments/find/order-1", "/payments/find/order-1/paid",
		"/payments?imp_uid[]=" + impUID, "/payments?merchant_uid[]=order-1",
	} {
		other.get(path).wantError(404, 1, "존재하지 않는 결제정보입니다.")
		a.get(path).want(200, 0)
	}
	a.get("/payments/imp_999999999999").wantError(404, 1, "존재하지 않는 결제정보입니다.")
}

func TestFindPayment_StatusAndSorting(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	mk := func(status string, started, paid int64) string {
		body := jsonBody{"merchant_uid": "order", "amount": 1000, "status": status, "started_at": started}
		if paid != 0 {
			body["paid_at"] = paid
		}
		b.clock.Advance(time.Second) // distinct updated_at
		return m.post("/sandbox/payments", body).want(200, 0).obj()["imp_uid"].(string)
	}
	failedOld := mk("failed", 100, 0)
	paidMid := mk("paid", 200, 900)
	paidNew := mk("paid", 300, 400)
	readyNewest := mk("ready", 400, 0)

	cases := []struct{ path, want string }{
		{"/payments/find/order", readyNewest},
		{"/payments/find/order/", readyNewest},
		{"/payments/find/order?sorting=-started", readyNewest},
		{"/payments/find/order?sorting=started", failedOld},
		{"/payments/find/order/paid", paidNew},
		{"/payments/find/order/paid/", paidNew},
		{"/payments/find/order/paid?sorting=-paid", paidMid},
		{"/payments/find/order/paid?sorting=paid", paidNew},
		{"/payments/find/order/failed", failedOld},
		{"/payments/find/order/ready", readyNewest},
		{"/payments/find/order?sorting=updated", failedOld},
		{"/payments/find/order?sorting=-updated", readyNewest},
	}
	for _, c := range cases {
		if got := m.get(c.path).want(200, 0).obj()["imp_uid"]; got != c.want {
			t.Errorf("%s = %v, want %v", c.path, got, c.want)
		}
	}
	m.get("/payments/find/order/cancelled").wantError(404, 1, "존재하지 않는 결제정보입니다.")
	m.get("/payments/find/order/done").wantError(400, -1, "payment_status: must be one of ready, paid, failed, cancelled")
	m.get("/payments/find/order?sorting=newest").wantError(400, -1, "sorting: must be one of -started, started, -paid, paid, -updated, updated")
}

func TestPayments_Multi(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	p1 := sandboxPaid(m, "o1")["imp_uid"].(string)
	p2 := sandboxPaid(m, "o2")["imp_uid"].(string)
	p3 := sandboxPaid(m, "o3")["imp_uid"].(string)
	ids := func(r *result) []string {
		var out []string
		for _, p := range r.list() {
			out = append(out, p.(map[string]any)["imp_uid"].(string))
		}
		return out
	}
	for _, c := range []struct {
		query  string
		status int
		want   []string
	}{
		{"imp_uid[]=" + p2 + "&imp_uid[]=" + p1, 200, []string{p2, p1}},
		{"imp_uid[0]=" + p1 + "&imp_uid[1]=" + p2, 200, []string{p1, p2}},
		{"imp_uid=" + p3 + "&imp_uid=" + p1, 200, []string{p3, p1}},
		{"imp_uid=" + p3, 200, []string{p3}},
		{"merchant_uid[]=o3&imp_uid[]=" + p1, 200, []string{p1, p3}},
		{"imp_uid[]=" + p1 + "&imp_uid[]=imp_000000000000&merchant_uid[]=nope", 207, []string{p1}},
	} {
		r := m.get("/payments?"+c.query).want(c.status, 0)
		if got := ids(r); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.query, got, c.want)
		}
	}
	m.get("/payments?imp_uid[]=imp_000000000000&merchant_uid[]=nope").wantError(404, 1, "존재하지 않는 결제정보입니다.")
	m.get("/payments").wantError(400, -1, "imp_uid[], merchant_uid[]: at least one identifier is required")
	var q []string
	for i := 0; i < 60; i++ {
		q = append(q, "imp_uid[]="+p1, fmt.Sprintf("merchant_uid[]=o%d", i%3+1))
	}
	m.get("/payments?"+strings.Join(q[:100], "&")).want(200, 0)
	m.get("/payments?"+strings.Join(q[:101], "&")).wantError(400, -1, "imp_uid[], merchant_uid[]: at most 100 identifiers in total, got 101")
	m.get("/payments/?imp_uid[]="+p1).want(200, 0)
}

func TestEdge_Errors(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	b.do("GET", "/nowhere", "", nil).wantError(404, -1, "no such endpoint: GET /nowhere")
	b.do("DELETE", "/users/getToken", "", nil).wantError(405, -1, "method DELETE is not allowed on /users/getToken")
	big := `{"merchant_uid":"o","amount":1,"name":"` + strings.Repeat("x", 1<<20) + `"}`
	m.post("/sandbox/payments", big).wantError(413, -1, "request body: must be at most 1 MiB")
	res := b.request("GET", "/healthz", nil, map[string]string{"X-Request-Id": "abc-123"})
	if res.status != 200 || res.body["status"] != "ok" || res.header.Get("X-Request-Id") != "abc-123" {
		t.Fatalf("healthz: %d %s %v", res.status, res.raw, res.header)
	}
	if id := b.do("GET", "/healthz", "", nil).header.Get("X-Request-Id"); len(id) != 24 {
		t.Fatalf("generated request id = %q", id)
	}
}
