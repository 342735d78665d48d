package httpapi_test

import (
	"net/url"
	"testing"
)

func TestPathParams_AreUnescaped(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	m.post("/subscribe/customers/user@example.com", jsonBody{"card_number": "4242-4242-4242-4242", "expiry": "2030-12"}).want(200, 0)
	for _, path := range []string{"/subscribe/customers/user%40example.com", "/subscribe/customers/user@example.com"} {
		if c := m.get(path).want(200, 0).obj(); c["customer_uid"] != "user@example.com" {
			t.Fatalf("%s: %v", path, c)
		}
	}
	m.post("/subscribe/customers/%EA%B3%A0%EA%B0%9D%2F1", jsonBody{"card_number": "4242-4242-4242-4242", "expiry": "2030-12"}).want(200, 0)
	if c := m.get("/subscribe/customers/%ea%b3%a0%ea%b0%9d%2f1").want(200, 0).obj(); c["customer_uid"] != "고객/1" {
		t.Fatalf("escaped customer_uid: %v", c)
	}
	p := sandboxPaid(m, "주문 1")
	if got := m.get("/payments/find/%EC%A3%BC%EB%AC%B8%201").want(200, 0).obj(); got["imp_uid"] != p["imp_uid"] {
		t.Fatalf("find by escaped merchant_uid: %v", got)
	}
}

func TestEmptyFormNumbersAreAbsent(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	p := sandboxPaid(m, "order-e")
	// checksum= and amount= as a PHP form sends unset optional numbers: a full refund without a check
	got := m.post("/payments/cancel", url.Values{"imp_uid": {p["imp_uid"].(string)}, "amount": {""}, "checksum": {""}}).want(200, 0).obj()
	if got["status"] != "cancelled" {
		t.Fatalf("cancel with empty optional numbers: %v", got)
	}
	m.post("/sandbox/payments", url.Values{"merchant_uid": {"x"}, "amount": {" "}}).wantError(400, -1, "amount: required")
}
