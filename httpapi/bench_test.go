package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payport/payport/gateway/sandbox"
	"github.com/payport/payport/httpapi"
	"github.com/payport/payport/service"
	"github.com/payport/payport/sqlite"
)

// benchServer is payport on real SQLite behind a real listener, with the
// system clock, for benchmarks.
type benchServer struct {
	url               string
	svc               *service.Service
	token             string
	impKey, impSecret string
}

func newBenchServer(b *testing.B) *benchServer {
	b.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	svc, err := service.New(db, service.Config{Gateway: sandbox.New(), SecretKey: bytes.Repeat([]byte("k"), 32), PublicURL: "http://bench"})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Options{Sandbox: true}))
	b.Cleanup(srv.Close)
	cred, err := svc.CreateMerchant(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	s := &benchServer{url: srv.URL, svc: svc, impKey: cred.IMPKey, impSecret: cred.IMPSecret}
	var tok struct {
		Response struct {
			AccessToken string `json:"access_token"`
		} `json:"response"`
	}
	s.mustPost(b, "/users/getToken", "", map[string]string{"imp_key": cred.IMPKey, "imp_secret": cred.IMPSecret}, &tok)
	s.token = tok.Response.AccessToken
	return s
}

// benchClient keeps enough idle connections for parallel benchmarks.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}

func (s *benchServer) do(method, path, token string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := benchClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

func (s *benchServer) mustPost(b *testing.B, path, token string, body, out any) {
	b.Helper()
	status, raw, err := s.do("POST", path, token, body)
	if err != nil || status != 200 {
		b.Fatalf("POST %s: %d %v %s", path, status, err, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			b.Fatal(err)
		}
	}
}

// reportRate prints requests per second, the figure the targets speak of.
func reportRate(b *testing.B, start time.Time) {
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// BenchmarkGetPayment compares GET /payments/{imp_uid} with a bare
// net/http handler writing the same bytes from memory (target: ≥ 40%).
func BenchmarkGetPayment(b *testing.B) {
	s := newBenchServer(b)
	var pay struct {
		Response struct {
			IMPUID string `json:"imp_uid"`
		} `json:"response"`
	}
	s.mustPost(b, "/sandbox/payments", s.token, map[string]any{"merchant_uid": "bench-1", "amount": 1000, "name": "Notebook"}, &pay)
	path := "/payments/" + pay.Response.IMPUID
	_, body, _ := s.do("GET", path, s.token, nil)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(body)
	}))
	defer bare.Close()
	run := func(b *testing.B, base string) {
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req, _ := http.NewRequest("GET", base+path, nil)
				req.Header.Set("Authorization", "Bearer "+s.token)
				resp, err := benchClient.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Errorf("GET: %v %v", resp, err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
		reportRate(b, start)
	}
	b.Run("payport", func(b *testing.B) { run(b, s.url) })
	b.Run("bare", func(b *testing.B) { run(b, bare.URL) })
}

// BenchmarkGetToken measures POST /users/getToken on a current token
// (target: ≥ 50% of a bare handler; some clients call it before every request).
func BenchmarkGetToken(b *testing.B) {
	s := newBenchServer(b)
	body := map[string]string{"imp_key": s.impKey, "imp_secret": s.impSecret}
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if status, raw, err := s.do("POST", "/users/getToken", "", body); err != nil || status != 200 {
				b.Errorf("getToken: %d %v %s", status, err, raw)
				return
			}
		}
	})
	reportRate(b, start)
}

// BenchmarkOneTime measures durable one-time card payments, each a
// committed payment (target: ≥ 6,000/s).
func BenchmarkOneTime(b *testing.B) {
	s := newBenchServer(b)
	var seq atomic.Int64
	b.SetParallelism(16)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := map[string]any{"merchant_uid": fmt.Sprintf("ot-%d", seq.Add(1)), "amount": 1000,
				"card_number": "4242-4242-4242-4242", "expiry": "2030-12"}
			if status, raw, err := s.do("POST", "/subscribe/payments/onetime", s.token, body); err != nil || status != 200 {
				b.Errorf("onetime: %d %v %s", status, err, raw)
				return
			}
		}
	})
	reportRate(b, start)
}
