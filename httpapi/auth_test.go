package httpapi_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestGetToken_IssuesTokenWithExactShape(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	res := b.do("POST", "/users/getToken", "", jsonBody{"imp_key": m.cred.IMPKey, "imp_secret": m.cred.IMPSecret}).want(200, 0)
	r := res.obj()
	wantKeys(t, r, "access_token", "now", "expired_at")
	mask(t, r, "access_token", "[0-9a-f]{40}")
	wantJSON(t, r, `{"access_token":"<access_token>","now":1790000000,"expired_at":1790001800}`)
}

func TestGetToken_AcceptsFormAndCharsetBodies(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	form := b.do("POST", "/users/getToken", "", url.Values{" imp_key ": {" " + m.cred.IMPKey + " "}, "imp_secret": {m.cred.IMPSecret}}).want(200, 0)
	body := `{"imp_key":"` + m.cred.IMPKey + `","imp_secret":"` + m.cred.IMPSecret + `"}`
	charset := b.request("POST", "/users/getToken/", body, map[string]string{"Content-Type": "application/json;charset=utf-8"}).want(200, 0)
	if form.obj()["access_token"] != charset.obj()["access_token"] {
		t.Fatalf("form and JSON requests got different tokens")
	}
}

func TestGetToken_ReuseExtendExpire(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	get := func() map[string]any {
		return b.do("POST", "/users/getToken", "", jsonBody{"imp_key": m.cred.IMPKey, "imp_secret": m.cred.IMPSecret}).want(200, 0).obj()
	}
	first := get()
	exp := first["expired_at"].(json.Number)

	b.clock.Advance(10 * time.Minute) // reuse: same token, same expiry
	again := get()
	if again["access_token"] != first["access_token"] || again["expired_at"] != exp {
		t.Fatalf("reuse: got %v, want token and expiry of %v", again, first)
	}
	if again["now"] != json.Number("1790000600") {
		t.Fatalf("now = %v, want 1790000600", again["now"])
	}

	b.clock.Advance(1800*time.Second - 10*time.Minute - 59*time.Second) // 59 s before expiry
	ext := get()
	if ext["access_token"] != first["access_token"] || ext["expired_at"] != json.Number("1790002100") {
		t.Fatalf("extension: got %v, want same token expiring at 1790002100", ext)
	}
	if after := get(); after["expired_at"] != json.Number("1790002100") {
		t.Fatalf("second request after extension extended again: %v", after)
	}

	b.clock.Advance(360 * time.Second) // 1 s past the extended expiry
	b.do("GET", "/payments/imp_000000000000", first["access_token"].(string), nil).wantError(401, -1, "Unauthorized")
	fresh := get()
	if fresh["access_token"] == first["access_token"] {
		t.Fatalf("after expiry the old token was returned again")
	}
	if fresh["now"] != json.Number("1790002101") || fresh["expired_at"] != json.Number("1790003901") {
		t.Fatalf("fresh token: got %v, want now 1790002101 and expiry 1790003901", fresh)
	}
	b.do("GET", "/payments/imp_000000000000", first["access_token"].(string), nil).wantError(401, -1, "Unauthorized")
	b.do("GET", "/payments/imp_000000000000", fresh["access_token"].(string), nil).want(404, 1)
}

func TestGetToken_ConcurrentRequestsGetOneToken(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	for _, phase := range []time.Duration{0, 1800*time.Second - 30*time.Second, 10 * time.Minute} {
		b.clock.Advance(phase) // fresh issue, last-minute extension, after expiry
		tokens := make([]string, 50)
		expiries := make([]json.Number, 50)
		var wg sync.WaitGroup
		for i := range tokens {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := b.do("POST", "/users/getToken", "", jsonBody{"imp_key": m.cred.IMPKey, "imp_secret": m.cred.IMPSecret}).want(200, 0).obj()
				tokens[i], expiries[i] = r["access_token"].(string), r["expired_at"].(json.Number)
			}()
		}
		wg.Wait()
		for i := range tokens {
			if tokens[i] != tokens[0] || expiries[i] != expiries[0] {
				t.Fatalf("phase %v: request %d got %s/%s, request 0 got %s/%s", phase, i, tokens[i], expiries[i], tokens[0], expiries[0])
			}
		}
	}
}

func TestGetToken_Failures(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	cases := []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"MissingSecret", jsonBody{"imp_key": m.cred.IMPKey}, 400, "imp_key, imp_secret 파라메터가 누락되었습니다."},
		{"MissingBoth", jsonBody{}, 400, "imp_key, imp_secret 파라메터가 누락되었습니다."},
		{"EmptyBody", nil, 400, "imp_key, imp_secret 파라메터가 누락되었습니다."},
		{"WrongSecret", jsonBody{"imp_key": m.cred.IMPKey, "imp_secret": "nope"}, 401, "imp_key, imp_secret 인증에 실패하였습니다."},
		{"UnknownKey", jsonBody{"imp_key": "0000", "imp_secret": m.cred.IMPSecret}, 401, "imp_key, imp_secret 인증에 실패하였습니다."},
		{"MalformedJSON", `{"imp_key":`, 400, "body: must be a JSON object"},
		{"WrongType", jsonBody{"imp_key": true, "imp_secret": "x"}, 400, "imp_key: must be a string"},
	}
	for _, c := range cases {
		b.do("POST", "/users/getToken", "", c.body).wantError(c.status, -1, c.msg)
	}
}

func TestAuth_EveryEndpointNeedsAToken(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	endpoints := []struct{ method, path string }{
		{"GET", "/payments/imp_123456789012"},
		{"GET", "/payments?imp_uid[]=imp_123456789012"},
		{"GET", "/payments/find/order-1"},
		{"GET", "/payments/find/order-1/paid"},
		{"POST", "/sandbox/payments"},
	}
	for _, e := range endpoints {
		for _, tok := range []string{"", "not-a-token"} {
			res := b.do(e.method, e.path, tok, jsonBody{"merchant_uid": ""}) // invalid body: the token check comes first
			res.wantError(401, -1, "Unauthorized")
			if res.header.Get("WWW-Authenticate") != "Bearer" {
				t.Fatalf("%s %s: WWW-Authenticate = %q", e.method, e.path, res.header.Get("WWW-Authenticate"))
			}
		}
	}
	tok := m.token()
	for _, h := range []map[string]string{
		{"Authorization": "Bearer " + tok},
		{"Authorization": tok},
		{"X-ImpTokenHeader": tok},
		{"Authorization": "Bearer " + tok, "X-ImpTokenHeader": "wrong"},
	} {
		b.request("GET", "/payments/imp_123456789012", nil, h).want(404, 1)
	}
	b.request("GET", "/payments/imp_123456789012", nil, map[string]string{"Authorization": "Bearer wrong", "X-ImpTokenHeader": tok}).want(401, -1)
}

func TestSignIn_RotationAndReuseDetection(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	signin := func(body any) *result { return b.request("POST", "/v2/signin/api-key", body, nil) }
	regen := func(refresh string) *result {
		return b.request("POST", "/v2/token-regeneration", jsonBody{"refresh_token": refresh}, nil)
	}
	first := signin(jsonBody{"api_key": m.cred.APIKey})
	if first.status != 200 {
		t.Fatalf("signin status %d: %s", first.status, first.raw)
	}
	wantKeys(t, first.body, "access_token", "refresh_token")
	access, refresh := first.body["access_token"].(string), first.body["refresh_token"].(string)
	b.do("GET", "/payments/imp_123456789012", access, nil).want(404, 1) // accepted as a bearer token

	second := regen(refresh)
	if second.status != 200 {
		t.Fatalf("regeneration status %d: %s", second.status, second.raw)
	}
	wantKeys(t, second.body, "access_token", "refresh_token")
	access2, refresh2 := second.body["access_token"].(string), second.body["refresh_token"].(string)
	if access2 == access || refresh2 == refresh {
		t.Fatalf("regeneration returned the old tokens")
	}
	b.do("GET", "/payments/imp_123456789012", access2, nil).want(404, 1)

	reuse := regen(refresh) // the used refresh token again: the whole family is revoked
	wantSigninError(t, reuse, 401, "UNAUTHORIZED", "refresh token was already used; every token of this sign-in is revoked")
	b.do("GET", "/payments/imp_123456789012", access, nil).want(401, -1)
	b.do("GET", "/payments/imp_123456789012", access2, nil).want(401, -1)
	wantSigninError(t, regen(refresh2), 401, "UNAUTHORIZED", "refresh token is invalid or expired")

	// an independent sign-in is unaffected
	other := signin(url.Values{"api_key": {m.cred.APIKey}})
	b.do("GET", "/payments/imp_123456789012", other.body["access_token"].(string), nil).want(404, 1)
}

func TestSignIn_Failures(t *testing.T) {
	b := setup(t)
	b.merchant("shop")
	wantSigninError(t, b.request("POST", "/v2/signin/api-key", jsonBody{"api_key": "wrong"}, nil), 401, "UNAUTHORIZED", "invalid credentials")
	wantSigninError(t, b.request("POST", "/v2/signin/api-key", jsonBody{}, nil), 400, "INVALID_REQUEST", "api_key: required")
	wantSigninError(t, b.request("POST", "/v2/signin/api-key", "{", nil), 400, "INVALID_REQUEST", "body: must be a JSON object")
	wantSigninError(t, b.request("POST", "/v2/token-regeneration", jsonBody{}, nil), 400, "INVALID_REQUEST", "refresh_token: required")
	wantSigninError(t, b.request("POST", "/v2/token-regeneration", jsonBody{"refresh_token": "nope"}, nil), 401, "UNAUTHORIZED", "refresh token is invalid or expired")
}

func TestSignIn_RefreshTokenExpires(t *testing.T) {
	b := setup(t)
	m := b.merchant("shop")
	first := b.request("POST", "/v2/signin/api-key", jsonBody{"api_key": m.cred.APIKey}, nil)
	b.clock.Advance(1800 * time.Second)
	b.do("GET", "/payments/imp_123456789012", first.body["access_token"].(string), nil).want(401, -1)
	b.clock.Advance(24*time.Hour - 1800*time.Second)
	wantSigninError(t, b.request("POST", "/v2/token-regeneration", jsonBody{"refresh_token": first.body["refresh_token"]}, nil), 401, "UNAUTHORIZED", "refresh token is invalid or expired")
}

func wantSigninError(t *testing.T, r *result, status int, typ, msg string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d: %s", r.status, status, r.raw)
	}
	wantKeys(t, r.body, "type", "message")
	if r.body["type"] != typ || r.body["message"] != msg {
		t.Fatalf("got %s, want type %s message %q", r.raw, typ, msg)
	}
	if strings.Contains(string(r.raw), "code") {
		t.Fatalf("sign-in errors carry no envelope: %s", r.raw)
	}
}
