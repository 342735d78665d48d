package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payport/payport/postgres/pgtest"
)

func httpGet(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestServe_MetricsAndReadyz(t *testing.T) {
	c := newCLI(t)
	base, stdout, stop := c.serve()
	defer stop()
	fields := map[string]string{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			fields[f[0]] = f[1]
		}
	}
	_, res := getToken(t, base, fields["imp_key"], fields["imp_secret"])
	tok := res["response"].(map[string]any)["access_token"].(string)
	status, env, err := call("POST", base+"/subscribe/payments/onetime", tok, map[string]any{"merchant_uid": "m-1", "amount": 1000, "card_number": "4242-4242-4242-4242", "expiry": "2030-12"})
	if err != nil || status != 200 || env["code"] != float64(0) {
		t.Fatalf("onetime: %d %v %v", status, env, err)
	}
	if _, _, err := call("POST", base+"/payments/cancel", tok, map[string]any{"merchant_uid": "m-1", "amount": 300}); err != nil {
		t.Fatal(err)
	}
	if status, body := httpGet(t, base+"/readyz", ""); status != 200 || body != `{"status":"ok"}` {
		t.Fatalf("readyz: %d %s", status, body)
	}
	status, body := httpGet(t, base+"/metrics", "")
	if status != 200 {
		t.Fatalf("metrics: %d", status)
	}
	for _, want := range []string{
		`payport_http_requests_total{method="POST",route="/users/getToken",status="200"} 1`,
		`payport_http_request_duration_seconds_bucket{method="POST",route="/subscribe/payments/onetime"`,
		`payport_payments_total{status="paid"} 1`,
		`payport_refunds_total{currency="KRW"} 1`,
		`payport_refunded_amount_total{currency="KRW"} 300`,
		`payport_webhook_queue_depth 0`,
		`payport_db_pool_connections{pool="writer",state="max"} 1`,
		`payport_schedule_lag_seconds_count 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// proxy is a TCP proxy to PostgreSQL that a test can cut and restore, as
// if the database went away and came back.
type proxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target}
	p.start("127.0.0.1:0")
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) start(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatalf("proxy listen: %v", err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
}

// stop refuses new connections and drops every open one.
func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestServe_DatabaseLostAndBack cuts a serving node off its PostgreSQL
// database: requests get the 500 envelope and /readyz fails; when the
// database returns, the node recovers without a restart.
func TestServe_DatabaseLostAndBack(t *testing.T) {
	c := newCLI(t)
	dbURL := pgtest.URL(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	px := newProxy(t, u.Host)
	u.Host = px.addr
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	c.env["PAYPORT_DATABASE_URL"] = u.String()
	c.env["PAYPORT_SECRET_KEY"] = strings.Repeat("k", 32)
	_, out, _ := c.run("merchant", "create", "--name", "pg", "--json")
	var cred struct {
		IMPKey    string `json:"imp_key"`
		IMPSecret string `json:"imp_secret"`
	}
	if err := json.Unmarshal([]byte(out), &cred); err != nil {
		t.Fatalf("merchant create: %q", out)
	}
	base, _, stop := c.serve()
	defer stop()
	_, res := getToken(t, base, cred.IMPKey, cred.IMPSecret)
	tok := res["response"].(map[string]any)["access_token"].(string)
	if status, body := httpGet(t, base+"/readyz", ""); status != 200 {
		t.Fatalf("readyz before: %d %s", status, body)
	}

	px.stop()
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, body := httpGet(t, base+"/readyz", "")
		if status == 503 && body == `{"status":"unavailable"}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz while the database is gone: %d %s", status, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	status, body := httpGet(t, base+"/payments/imp_000000000000", tok)
	if status != 500 || body != `{"code":-1,"message":"일시적인 오류가 발생했습니다. 잠시 후 다시 시도해주세요."}` {
		t.Fatalf("a lookup while the database is gone: %d %s", status, body)
	}

	px.start(px.addr) // the database is back at the same address
	deadline = time.Now().Add(30 * time.Second)
	for {
		if status, _ := httpGet(t, base+"/readyz", ""); status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz did not recover")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status, body := httpGet(t, base+"/payments/imp_000000000000", tok); status != 404 {
		t.Fatalf("a lookup after recovery: %d %s", status, body)
	}
}
