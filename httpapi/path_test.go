package httpapi_test

import "testing"

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
