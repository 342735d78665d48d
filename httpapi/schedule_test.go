package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payport/payport"
	"github.com/payport/payport/service"
	"github.com/payport/payport/webhook"
)

// receiver is a real webhook receiver on loopback that records every
// delivery and answers with the status its script gives.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []delivery
	answer func(n int) int // status for the n-th delivery (1-based); nil → 200
}

type delivery struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	return newReceiverOn(t, nil)
}

// newReceiverOn starts a receiver on ln, or on a fresh loopback port when ln is nil.
func newReceiverOn(t *testing.T, ln net.Listener) *receiver {
	t.Helper()
	r := &receiver{}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, delivery{req.Header.Clone(), body})
		n := len(r.got)
		answer := r.answer
		r.mu.Unlock()
		status := http.StatusOK
		if answer != nil {
			status = answer(n)
		}
		w.WriteHeader(status)
	}))
	if ln != nil {
		r.srv.Listener.Close()
		r.srv.Listener = ln
	}
	r.srv.Start()
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// setNotificationURL points the merchant's webhooks at url.
func (m *merchant) setNotificationURL(url string) {
	m.b.t.Helper()
	if _, err := m.b.svc.UpdateMerchantSettings(context.Background(), m.cred.IMPKey, service.MerchantSettings{NotificationURL: &url}); err != nil {
		m.b.t.Fatalf("set notification url: %v", err)
	}
}

// issueKey registers a billing key for uid with card.
func (m *merchant) issueKey(uid, card string) {
	m.b.t.Helper()
	m.post("/subscribe/customers/"+uid, jsonBody{"card_number": card, "expiry": "2030-12", "customer_name": "홍길동",
		"customer_email": "hong@example.com", "customer_tel": "010-1234-5678"}).want(200, 0)
}

func scheduleItem(merchantUID string, at int64, amount int) map[string]any {
	return map[string]any{"merchant_uid": merchantUID, "schedule_at": at, "amount": amount}
}

const scheduledJSON = `{"customer_uid":"cust-1","merchant_uid":"sub-1","imp_uid":null,"schedule_at":1790003600,
 "executed_at":0,"revoked_at":0,"amount":9900,"name":"정기결제","buyer_name":"홍길동","buyer_email":"hong@example.com",
 "buyer_tel":"010-1234-5678","buyer_addr":null,"buyer_postcode":null,"custom_data":null,
 "schedule_status":"scheduled","payment_status":null,"fail_reason":null}`

func TestSchedule_ExistingKey_ExactResultAndLookup(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.issueKey("cust-1", "4242-4242-4242-4242")
	res := m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-1", "schedules": []any{
		scheduleItem("sub-1", testStart+3600, 9900),
		map[string]any{"merchant_uid": "sub-2", "schedule_at": testStart + 7200, "amount": 100, "name": "Pro",
			"buyer_name": "Kim", "custom_data": map[string]any{"plan": "pro"}, "currency": "KRW"},
	}}).want(200, 0).list()
	if len(res) != 2 {
		t.Fatalf("results: %v", res)
	}
	wantJSON(t, res[0], scheduledJSON)
	second := res[1].(map[string]any)
	if second["name"] != "Pro" || second["buyer_name"] != "Kim" || second["buyer_email"] != "hong@example.com" || second["custom_data"] != `{"plan":"pro"}` {
		t.Fatalf("second item: %v", second)
	}
	wantJSON(t, m.get("/subscribe/payments/schedule/sub-1").want(200, 0).obj(), scheduledJSON)
	m.get("/subscribe/payments/schedule/nope").wantError(404, 1, "존재하지 않는 예약결제 정보입니다.")
}

func TestSchedule_NewCustomerWithCardIssuesKey(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	form := fmt.Sprintf("customer_uid=cust-9&card_number=5555-5555-5555-4444&expiry=2030-01&customer_name=Lee"+
		"&schedules[0][merchant_uid]=s-1&schedules[0][schedule_at]=%d&schedules[0][amount]=500", testStart+60)
	res := b.request("POST", "/subscribe/payments/schedule", form, map[string]string{
		"Authorization": "Bearer " + m.token(), "Content-Type": "application/x-www-form-urlencoded"}).want(200, 0).list()
	if r := res[0].(map[string]any); r["buyer_name"] != "Lee" || r["customer_uid"] != "cust-9" || r["amount"] != json.Number("500") {
		t.Fatalf("result: %v", r)
	}
	c := m.get("/subscribe/customers/cust-9").want(200, 0).obj()
	if c["card_number"] != "555555******4444" || c["customer_name"] != "Lee" {
		t.Fatalf("issued key: %v", c)
	}
}

func TestSchedule_RefusalsChangeNothing(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.issueKey("cust-1", "4242-4242-4242-4242")
	sandboxPaid(m, "taken-by-payment")
	m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("taken-by-schedule", testStart+60, 100)}}).want(200, 0)
	for _, c := range []struct {
		name string
		body jsonBody
		code int
		msg  string
	}{
		{"UnknownCustomerNoCard", jsonBody{"customer_uid": "ghost", "schedules": []any{scheduleItem("a", testStart+60, 100)}}, 1, "등록된 고객정보가 없습니다."},
		{"PastScheduleAt", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("a", testStart, 100)}}, 1, "schedule_at은 현재 시각 이후여야 합니다."},
		{"DuplicateInRequest", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("a", testStart+60, 100), scheduleItem("a", testStart+120, 100)}}, 1, "이미 사용된 merchant_uid입니다."},
		{"UsedByPayment", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("a", testStart+60, 100), scheduleItem("taken-by-payment", testStart+120, 100)}}, 1, "이미 사용된 merchant_uid입니다."},
		{"UsedBySchedule", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("a", testStart+60, 100), scheduleItem("taken-by-schedule", testStart+120, 100)}}, 1, "이미 사용된 merchant_uid입니다."},
		{"BadCardNewCustomer", jsonBody{"customer_uid": "new", "card_number": "1234-5678-9012-3456", "expiry": "2030-01", "schedules": []any{scheduleItem("a", testStart+60, 100)}}, -1, "카드정보 인증에 실패하였습니다. [유효하지않은 카드번호]"},
		{"DeclinedCardNewCustomer", jsonBody{"customer_uid": "new", "card_number": "4000-0000-0000-0002", "expiry": "2030-01", "schedules": []any{scheduleItem("a", testStart+60, 100)}}, -1, "[카드사 거절] 승인이 거절되었습니다."},
	} {
		t.Run(c.name, func(t *testing.T) {
			m.post("/subscribe/payments/schedule", c.body).wantError(200, c.code, c.msg)
		})
	}
	m.get("/subscribe/payments/schedule/a").want(404, 1)
	m.get("/subscribe/customers/new").wantError(200, 1, "요청하신 customer_uid(new)로 등록된 정보를 찾을 수 없습니다.")
	if n := b.count("schedules"); n != 1 {
		t.Fatalf("schedules stored: %d, want 1", n)
	}
}

func TestSchedule_BadInput(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.issueKey("cust-1", "4242-4242-4242-4242")
	at := int64(testStart + 60)
	for _, c := range []struct {
		name string
		body jsonBody
		msg  string
	}{
		{"NoCustomer", jsonBody{"schedules": []any{scheduleItem("a", at, 1)}}, "customer_uid: required"},
		{"NoSchedules", jsonBody{"customer_uid": "cust-1"}, "schedules: at least one schedule is required"},
		{"SchedulesNotArray", jsonBody{"customer_uid": "cust-1", "schedules": "x"}, "schedules: must be an array of objects"},
		{"ItemNotObject", jsonBody{"customer_uid": "cust-1", "schedules": []any{1}}, "schedules[0]: must be an object"},
		{"NoMerchantUID", jsonBody{"customer_uid": "cust-1", "schedules": []any{map[string]any{"schedule_at": at, "amount": 1}}}, "schedules[0].merchant_uid: required"},
		{"NoScheduleAt", jsonBody{"customer_uid": "cust-1", "schedules": []any{map[string]any{"merchant_uid": "a", "amount": 1}}}, "schedules[0].schedule_at: required"},
		{"ScheduleAtText", jsonBody{"customer_uid": "cust-1", "schedules": []any{map[string]any{"merchant_uid": "a", "amount": 1, "schedule_at": "soon"}}}, "schedules[0].schedule_at: must be a number"},
		{"NoAmount", jsonBody{"customer_uid": "cust-1", "schedules": []any{map[string]any{"merchant_uid": "a", "schedule_at": at}}}, "schedules[0].amount: required"},
		{"ZeroAmount", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("a", at, 0)}}, "schedules[0].amount: must be a positive number with at most 0 decimals for KRW"},
		{"SecondItemBad", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("a", at, 1), scheduleItem("b", at, -5)}}, "schedules[1].amount: must be a positive number with at most 0 decimals for KRW"},
		{"Currency", jsonBody{"customer_uid": "cust-1", "schedules": []any{map[string]any{"merchant_uid": "a", "schedule_at": at, "amount": 1, "currency": "XYZ"}}}, `schedules[0].currency: unsupported currency code "XYZ"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m.post("/subscribe/payments/schedule", c.body).wantError(400, -1, c.msg)
		})
	}
	if n := b.count("schedules"); n != 0 {
		t.Fatalf("schedules stored: %d", n)
	}
}

func TestScheduleList_WindowStatusPagingAndShapes(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.issueKey("cust-1", "4242-4242-4242-4242")
	items := make([]any, 25)
	for i := range items {
		items[i] = scheduleItem(fmt.Sprintf("s-%02d", i), testStart+int64(i+1)*3600, 100)
	}
	m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-1", "schedules": items}).want(200, 0)
	m.post("/subscribe/payments/unschedule", jsonBody{"customer_uid": "cust-1", "merchant_uid": "s-24"}).want(200, 0)
	from, to := testStart, testStart+86400*30
	base := fmt.Sprintf("/subscribe/payments/schedule/customers/cust-1?from=%d&to=%d", from, to)

	page1 := m.get(base).want(200, 0).list()
	if len(page1) != 20 || page1[0].(map[string]any)["merchant_uid"] != "s-24" || page1[19].(map[string]any)["merchant_uid"] != "s-05" {
		t.Fatalf("page 1: %d items, first %v", len(page1), page1[0])
	}
	if page2 := m.get(base+"&page=2").want(200, 0).list(); len(page2) != 5 {
		t.Fatalf("page 2: %d items", len(page2))
	}
	for _, q := range []string{"&schedule-status=revoked", "&schedule_status=revoked"} {
		if l := m.get(base+q).want(200, 0).list(); len(l) != 1 || l[0].(map[string]any)["schedule_status"] != "revoked" {
			t.Fatalf("%s: %v", q, l)
		}
	}
	// from is inclusive, to exclusive
	one := fmt.Sprintf("/subscribe/payments/schedule/customers/cust-1?from=%d&to=%d", testStart+3600, testStart+7200)
	if l := m.get(one).want(200, 0).list(); len(l) != 1 || l[0].(map[string]any)["merchant_uid"] != "s-00" {
		t.Fatalf("window: %v", l)
	}
	if l := m.get(fmt.Sprintf("/subscribe/customers/cust-1/schedules?from=%d&to=%d", from, to)).want(200, 0).list(); len(l) != 20 {
		t.Fatalf("alias: %d", len(l))
	}
	if l := m.get(fmt.Sprintf("/subscribe/payments/schedule/customers/ghost?from=%d&to=%d", from, to)).want(200, 0).list(); len(l) != 0 {
		t.Fatalf("unknown customer: %v", l)
	}
	for _, c := range []struct{ q, msg string }{
		{"?to=1790086400", "from: required"},
		{"?from=1790000000", "to: required"},
		{"?from=1790000000&to=1790000000", "to: must be after from"},
		{fmt.Sprintf("?from=%d&to=%d", from, from+86400*100), "to: the window from..to must be at most 3 months (to <= 1797862400)"},
		{base[strings.Index(base, "?"):] + "&schedule-status=done", "schedule-status: must be one of scheduled, executed, revoked"},
		{base[strings.Index(base, "?"):] + "&page=0", "page: must be a page number from 1"},
	} {
		m.get("/subscribe/payments/schedule/customers/cust-1"+c.q).wantError(400, -1, c.msg)
	}

	paged := true
	if _, err := b.svc.UpdateMerchantSettings(context.Background(), m.cred.IMPKey, service.MerchantSettings{ScheduleListPaged: &paged}); err != nil {
		t.Fatal(err)
	}
	obj := m.get(base+"&page=2").want(200, 0).obj()
	wantKeys(t, obj, "total", "previous", "next", "list")
	if obj["total"] != json.Number("25") || obj["previous"] != json.Number("1") || obj["next"] != json.Number("0") || len(obj["list"].([]any)) != 5 {
		t.Fatalf("paged: %v", obj)
	}
	if obj := m.get(base).want(200, 0).obj(); obj["previous"] != json.Number("0") || obj["next"] != json.Number("2") {
		t.Fatalf("paged page 1: %v", obj)
	}
}

func TestUnschedule_Rules(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.issueKey("cust-1", "4242-4242-4242-4242")
	m.issueKey("cust-2", "4242-4242-4242-4242")
	items := func(prefix string) []any {
		return []any{scheduleItem(prefix+"-a", testStart+60, 100), scheduleItem(prefix+"-b", testStart+120, 100), scheduleItem(prefix+"-c", testStart+180, 100)}
	}
	m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-1", "schedules": items("one")}).want(200, 0)
	m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-2", "schedules": items("two")}).want(200, 0)

	m.post("/subscribe/payments/unschedule", jsonBody{}).wantError(400, -1, "customer_uid, merchant_uid: at least one is required")
	got := m.post("/subscribe/payments/unschedule", jsonBody{"merchant_uid": "one-a"}).want(200, 0).list()
	r := got[0].(map[string]any)
	if len(got) != 1 || r["schedule_status"] != "revoked" || r["revoked_at"] != json.Number(itoa(testStart)) {
		t.Fatalf("revoke by merchant_uid: %v", got)
	}
	m.post("/subscribe/payments/unschedule", jsonBody{"merchant_uid": "one-a"}).wantError(200, 1, "취소할 예약결제 기록이 존재하지 않습니다.")
	m.post("/subscribe/payments/unschedule", jsonBody{"customer_uid": "cust-1", "merchant_uid": []any{"two-a"}}).wantError(200, 1, "취소할 예약결제 기록이 존재하지 않습니다.")
	if got := m.post("/subscribe/payments/unschedule", jsonBody{"customer_uid": "cust-2", "merchant_uid": []any{"two-a", "two-b"}}).want(200, 0).list(); len(got) != 2 {
		t.Fatalf("revoke by both: %v", got)
	}
	if got := m.post("/subscribe/payments/unschedule", url2("customer_uid", "cust-1")).want(200, 0).list(); len(got) != 2 {
		t.Fatalf("revoke all of a customer: %v", got)
	}
	other := b.merchant("other")
	other.post("/subscribe/payments/unschedule", jsonBody{"merchant_uid": "two-c"}).wantError(200, 1, "취소할 예약결제 기록이 존재하지 않습니다.")
	if s := m.get("/subscribe/payments/schedule/two-c").want(200, 0).obj(); s["schedule_status"] != "scheduled" {
		t.Fatalf("another merchant revoked it: %v", s)
	}
}

// url2 is a one-field form body.
func url2(k, v string) string { return k + "=" + v }

// advance moves the merchant's sandbox clock by seconds through the API.
func (m *merchant) advance(seconds int64) map[string]any {
	m.b.t.Helper()
	return m.post("/sandbox/clock/advance", jsonBody{"seconds": seconds}).want(200, 0).obj()
}

func TestSandboxClock_PerMerchantAndTokens(t *testing.T) {
	b := setup(t)
	m, other := b.merchant("shop"), b.merchant("other")
	wantJSON(t, m.get("/sandbox/clock").want(200, 0).obj(), `{"now":1790000000,"offset_seconds":0}`)
	tok := m.token()
	wantJSON(t, m.advance(600), `{"now":1790000600,"offset_seconds":600}`)
	wantJSON(t, m.advance(60), `{"now":1790000660,"offset_seconds":660}`)
	wantJSON(t, other.get("/sandbox/clock").want(200, 0).obj(), `{"now":1790000000,"offset_seconds":0}`)
	for _, bad := range []jsonBody{{}, {"seconds": 0}, {"seconds": -5}, {"seconds": "x"}} {
		m.post("/sandbox/clock/advance", bad).want(400, -1)
	}
	m.advance(1200) // 1860 s after issue: the token has expired on this merchant's clock
	b.do("GET", "/sandbox/clock", tok, nil).wantError(401, -1, "Unauthorized")
	// a payment made now carries the merchant's time
	m.tok = ""
	if p := sandboxPaid(m, "late"); p["paid_at"] != json.Number("1790001860") {
		t.Fatalf("paid_at = %v", p["paid_at"])
	}
	other.get("/sandbox/clock").want(200, 0)
}

// verifyDelivery checks a delivery's Standard Webhooks signature and body.
func verifyDelivery(t *testing.T, b *bundle, m *merchant, d delivery, wantBody string) {
	t.Helper()
	mm, err := b.svc.MerchantByIMPKey(context.Background(), m.cred.IMPKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := webhook.Verify(b.svc.WebhookSecret(mm), d.header, d.body, b.clock.Now(), 5*time.Minute); err != nil {
		t.Fatalf("signature: %v (headers %v)", err, d.header)
	}
	if string(d.body) != wantBody {
		t.Fatalf("body = %s, want %s", d.body, wantBody)
	}
}

func TestScheduledPayment_RunsOnceWithSignedWebhook(t *testing.T) {
	b := setupRunning(t)
	m := b.merchant("shop")
	rcv := newReceiver(t)
	m.setNotificationURL(rcv.srv.URL + "/hooks")
	m.issueKey("cust-1", "4242-4242-4242-4242")
	m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("sub-1", testStart+3600, 9900)}}).want(200, 0)
	m.advance(3599)
	m.advance(1)
	var s map[string]any
	eventually(t, "the schedule to run", func() bool {
		s = m.get("/subscribe/payments/schedule/sub-1").want(200, 0).obj()
		return s["schedule_status"] == "executed"
	})
	if s["payment_status"] != "paid" || s["executed_at"] != json.Number("1790003600") || s["fail_reason"] != nil {
		t.Fatalf("executed schedule: %v", s)
	}
	p := m.get("/payments/"+s["imp_uid"].(string)).want(200, 0).obj()
	if p["status"] != "paid" || p["customer_uid"] != "cust-1" || p["customer_uid_usage"] != "payment.scheduled" || p["channel"] != "api" || p["amount"] != json.Number("9900") || p["paid_at"] != json.Number("1790003600") {
		t.Fatalf("scheduled payment: %v", p)
	}
	eventually(t, "the webhook", func() bool { return len(rcv.deliveries()) == 1 })
	verifyDelivery(t, b, m, rcv.deliveries()[0], fmt.Sprintf(`{"imp_uid":%q,"merchant_uid":"sub-1","status":"paid"}`, p["imp_uid"]))
	if n := b.count("payments"); n != 1 {
		t.Fatalf("payments: %d, want exactly one", n)
	}
	log := m.get("/sandbox/webhooks").want(200, 0).list()
	if len(log) != 1 {
		t.Fatalf("delivery log: %v", log)
	}
	entry := log[0].(map[string]any)
	if entry["state"] != "delivered" || len(entry["attempts"].([]any)) != 1 || entry["attempts"].([]any)[0].(map[string]any)["http_status"] != json.Number("200") {
		t.Fatalf("log entry: %v", entry)
	}
}

func TestScheduledPayment_DeclineAndDeletedKeyFail(t *testing.T) {
	b := setupRunning(t)
	m := b.merchant("shop")
	rcv := newReceiver(t)
	m.setNotificationURL(rcv.srv.URL)
	m.issueKey("limit", "4000-0000-0000-0341")
	m.issueKey("gone", "4242-4242-4242-4242")
	m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "limit", "schedules": []any{scheduleItem("d-1", testStart+60, 100)}}).want(200, 0)
	m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "gone", "schedules": []any{scheduleItem("d-2", testStart+60, 100)}}).want(200, 0)
	b.do("DELETE", "/subscribe/customers/gone", m.token(), nil).want(200, 0)
	m.advance(60)
	for uid, reason := range map[string]string{"d-1": "[카드사 거절] 한도가 초과되었습니다.", "d-2": "등록되지 않은 구매자입니다."} {
		var s map[string]any
		eventually(t, uid+" to run", func() bool {
			s = m.get("/subscribe/payments/schedule/"+uid).want(200, 0).obj()
			return s["schedule_status"] == "executed"
		})
		if s["payment_status"] != "failed" || s["fail_reason"] != reason {
			t.Fatalf("%s: %v", uid, s)
		}
		p := m.get("/payments/"+s["imp_uid"].(string)).want(200, 0).obj()
		if p["status"] != "failed" || p["fail_reason"] != reason || p["customer_uid_usage"] != "payment.scheduled" {
			t.Fatalf("%s payment: %v", uid, p)
		}
	}
	eventually(t, "two webhooks", func() bool { return len(rcv.deliveries()) == 2 })
	for _, d := range rcv.deliveries() {
		if !strings.Contains(string(d.body), `"status":"failed"`) {
			t.Fatalf("webhook body %s", d.body)
		}
	}
}

func TestScheduledPayment_FullCancelMarksScheduleCancelled(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.issueKey("cust-1", "4242-4242-4242-4242")
	m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem("c-1", testStart+60, 1000)}}).want(200, 0)
	m.advance(60)
	if n, err := b.svc.RunDueSchedules(context.Background(), 10); err != nil || n != 1 {
		t.Fatalf("run: %d %v", n, err)
	}
	m.post("/payments/cancel", jsonBody{"merchant_uid": "c-1", "amount": 400}).want(200, 0)
	if s := m.get("/subscribe/payments/schedule/c-1").want(200, 0).obj(); s["payment_status"] != "paid" {
		t.Fatalf("after partial cancel: %v", s["payment_status"])
	}
	m.post("/payments/cancel", jsonBody{"merchant_uid": "c-1"}).want(200, 0)
	if s := m.get("/subscribe/payments/schedule/c-1").want(200, 0).obj(); s["payment_status"] != "cancelled" || s["schedule_status"] != "executed" {
		t.Fatalf("after full cancel: %v", s)
	}
}

func TestSchedule_RevokeRacingExecution(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.issueKey("cust-1", "4242-4242-4242-4242")
	ctx := context.Background()
	mm, err := b.svc.MerchantByIMPKey(ctx, m.cred.IMPKey)
	if err != nil {
		t.Fatal(err)
	}
	var revokedWins, executedWins int
	for round := 0; round < 200; round++ {
		uid := fmt.Sprintf("race-%d", round)
		m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-1", "schedules": []any{scheduleItem(uid, testStart+int64(round)+1, 100)}}).want(200, 0)
		b.clock.Advance(time.Second) // due now
		var wg sync.WaitGroup
		var revokeErr error
		start := make(chan struct{})
		wg.Go(func() {
			<-start
			if _, err := b.svc.RunDueSchedules(ctx, 10); err != nil {
				t.Errorf("run: %v", err)
			}
		})
		wg.Go(func() {
			<-start
			_, revokeErr = b.svc.Unschedule(ctx, mm, service.UnscheduleInput{MerchantUIDs: []string{uid}})
		})
		close(start)
		wg.Wait()
		s := m.get("/subscribe/payments/schedule/"+uid).want(200, 0).obj()
		switch s["schedule_status"] {
		case "revoked":
			if revokeErr != nil {
				t.Fatalf("round %d: revoked, yet unschedule said %v", round, revokeErr)
			}
			if s["imp_uid"] != nil || s["executed_at"] != json.Number("0") {
				t.Fatalf("round %d: revoked yet executed: %v", round, s)
			}
			revokedWins++
		case "executed":
			if payport.MessageOf(revokeErr) != service.MsgNothingToRevoke {
				t.Fatalf("round %d: executed, yet unschedule said %v", round, revokeErr)
			}
			if s["revoked_at"] != json.Number("0") {
				t.Fatalf("round %d: executed yet revoked: %v", round, s)
			}
			executedWins++
		default:
			t.Fatalf("round %d: %v", round, s)
		}
	}
	if n := b.count("payments"); n != executedWins {
		t.Fatalf("payments %d, executed %d", n, executedWins)
	}
	t.Logf("revoked %d, executed %d", revokedWins, executedWins)
}

func TestScheduledPayments_ThousandDueAtOnce(t *testing.T) {
	b := setupRunning(t)
	m := b.merchant("shop")
	rcv := newReceiver(t)
	m.setNotificationURL(rcv.srv.URL)
	m.issueKey("cust-1", "4242-4242-4242-4242")
	const n = 1000
	for batch := 0; batch < n/250; batch++ {
		items := make([]any, 250)
		for i := range items {
			items[i] = scheduleItem(fmt.Sprintf("bulk-%04d", batch*250+i), testStart+600, 100)
		}
		m.post("/subscribe/payments/schedule", jsonBody{"customer_uid": "cust-1", "schedules": items}).want(200, 0)
	}
	m.advance(600)
	eventually(t, "1000 payments", func() bool { return b.count("payments") == n })
	eventually(t, "1000 webhooks", func() bool { return len(rcv.deliveries()) >= n })
	perID := map[string]int{}
	perOrder := map[string]int{}
	for _, d := range rcv.deliveries() {
		perID[d.header.Get("webhook-id")]++
		var body struct {
			MerchantUID string `json:"merchant_uid"`
		}
		_ = json.Unmarshal(d.body, &body)
		perOrder[body.MerchantUID]++
	}
	if len(perOrder) != n {
		t.Fatalf("webhooks for %d orders, want %d", len(perOrder), n)
	}
	for id, c := range perID {
		if c != 1 {
			t.Fatalf("webhook %s delivered %d times", id, c)
		}
	}
	var executed atomic.Int32
	from, to := testStart, testStart+86400
	for page := 1; page <= n/payport.SchedulePageSize; page++ {
		for _, s := range m.get(fmt.Sprintf("/subscribe/payments/schedule/customers/cust-1?from=%d&to=%d&page=%d", from, to, page)).want(200, 0).list() {
			if s.(map[string]any)["schedule_status"] == "executed" {
				executed.Add(1)
			}
		}
	}
	if executed.Load() != n {
		t.Fatalf("executed %d of %d", executed.Load(), n)
	}
}

func TestWebhook_RetriesThenDelivers(t *testing.T) {
	b := setupRunning(t)
	m := b.merchant("shop")
	rcv := newReceiver(t)
	rcv.answer = func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}
	m.setNotificationURL(rcv.srv.URL)
	m.post("/subscribe/payments/onetime", jsonBody{"merchant_uid": "o-1", "amount": 1000, "card_number": "4242-4242-4242-4242", "expiry": "2030-12"}).want(200, 0)
	// Advance the clock only once an attempt is recorded: its retry time
	// is counted from when it ended.
	recorded := func(n int) func() bool {
		return func() bool {
			l := m.get("/sandbox/webhooks").want(200, 0).list()
			return len(l) == 1 && len(l[0].(map[string]any)["attempts"].([]any)) == n
		}
	}
	eventually(t, "first attempt", recorded(1))
	b.clock.Advance(60 * time.Second)
	eventually(t, "second attempt", recorded(2))
	b.clock.Advance(120 * time.Second)
	eventually(t, "third attempt", func() bool { return len(rcv.deliveries()) == 3 })
	var entry map[string]any
	eventually(t, "delivered state", func() bool {
		entry = m.get("/sandbox/webhooks").want(200, 0).list()[0].(map[string]any)
		return entry["state"] == "delivered"
	})
	attempts := entry["attempts"].([]any)
	if len(attempts) != 3 {
		t.Fatalf("attempts: %v", attempts)
	}
	for i, want := range []string{"500", "500", "200"} {
		if a := attempts[i].(map[string]any); a["http_status"] != json.Number(want) {
			t.Fatalf("attempt %d: %v", i, a)
		}
	}
	ids := map[string]bool{}
	for _, d := range rcv.deliveries() {
		ids[d.header.Get("webhook-id")] = true
	}
	if len(ids) != 1 {
		t.Fatalf("webhook-id changed across retries: %v", ids)
	}
}

func TestWebhook_ReceiverDownFailsThenRedeliver(t *testing.T) {
	b := setupRunning(t)
	m := b.merchant("shop")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // connection refused from now on
	m.setNotificationURL("http://" + addr + "/hooks")
	m.post("/subscribe/payments/onetime", jsonBody{"merchant_uid": "o-1", "amount": 1000, "card_number": "4242-4242-4242-4242", "expiry": "2030-12"}).want(200, 0)
	entry := func() map[string]any { return m.get("/sandbox/webhooks").want(200, 0).list()[0].(map[string]any) }
	wait := time.Minute
	for attempt := 1; attempt <= payport.DefaultWebhookMaxAttempts; attempt++ {
		eventually(t, fmt.Sprintf("attempt %d", attempt), func() bool { return len(entry()["attempts"].([]any)) == attempt })
		if attempt == payport.DefaultWebhookMaxAttempts {
			break
		}
		e := entry()
		last := e["attempts"].([]any)[attempt-1].(map[string]any)
		at, _ := last["attempted_at"].(json.Number).Int64()
		if next, _ := e["next_attempt_at"].(json.Number).Int64(); next != at+int64(wait/time.Second) || e["state"] != "pending" || last["http_status"] != json.Number("0") || last["error"] == nil {
			t.Fatalf("after attempt %d: want next attempt %v later, pending, a network error; got %v", attempt, wait, e)
		}
		b.clock.Advance(wait)
		wait *= 2
	}
	eventually(t, "failed state", func() bool { return entry()["state"] == "failed" })
	b.clock.Advance(24 * time.Hour)
	if n := len(entry()["attempts"].([]any)); n != payport.DefaultWebhookMaxAttempts {
		t.Fatalf("attempts after the limit: %d", n)
	}

	// The receiver comes back where it was; a redelivery reaches it with the same webhook-id.
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	rcv := newReceiverOn(t, ln)
	m.post("/sandbox/webhooks/999999/redeliver", nil).wantError(404, 1, "존재하지 않는 웹훅입니다.")
	e := entry()
	other := b.merchant("other")
	other.post("/sandbox/webhooks/"+e["id"].(json.Number).String()+"/redeliver", nil).wantError(404, 1, "존재하지 않는 웹훅입니다.")
	m.post("/sandbox/webhooks/"+e["id"].(json.Number).String()+"/redeliver", nil).want(200, 0)
	eventually(t, "redelivery", func() bool { return len(rcv.deliveries()) == 1 })
	if got := rcv.deliveries()[0].header.Get("webhook-id"); got != e["webhook_id"] {
		t.Fatalf("redelivered webhook-id %q, want %q", got, e["webhook_id"])
	}
	eventually(t, "delivered state", func() bool { return entry()["state"] == "delivered" })
}
