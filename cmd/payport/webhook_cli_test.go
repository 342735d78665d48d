package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payport/payport/webhook"
)

func TestMerchantWebhookSecret_PrintsAndRotates(t *testing.T) {
	c := newCLI(t)
	_, out, _ := c.run("merchant", "create", "--name", "Acme", "--json")
	var cred struct {
		IMPKey string `json:"imp_key"`
	}
	if err := json.Unmarshal([]byte(out), &cred); err != nil {
		t.Fatal(err)
	}
	code, first, _ := c.run("merchant", "webhook-secret", "--imp-key", cred.IMPKey)
	if code != 0 || !strings.HasPrefix(first, "whsec_") || strings.Count(first, "\n") != 1 {
		t.Fatalf("webhook-secret: %d %q", code, first)
	}
	if _, again, _ := c.run("merchant", "webhook-secret", "--imp-key", cred.IMPKey); again != first {
		t.Fatalf("secret changed without --rotate: %q then %q", first, again)
	}
	_, rotated, _ := c.run("merchant", "webhook-secret", "--imp-key", cred.IMPKey, "--rotate")
	if rotated == first || !strings.HasPrefix(rotated, "whsec_") {
		t.Fatalf("rotate: %q then %q", first, rotated)
	}
	if _, after, _ := c.run("merchant", "webhook-secret", "--imp-key", cred.IMPKey); after != rotated {
		t.Fatalf("rotated secret not kept: %q then %q", rotated, after)
	}
	if code, _, errs := c.run("merchant", "webhook-secret", "--imp-key", "nope"); code != 1 || !strings.Contains(errs, `no merchant has imp_key "nope"`) {
		t.Fatalf("unknown merchant: %d %q", code, errs)
	}
	if code, _, errs := c.run("merchant", "webhook-secret"); code != 2 || !strings.Contains(errs, "--imp-key is required") {
		t.Fatalf("missing key: %d %q", code, errs)
	}
}

// lockedBuffer is a bytes.Buffer safe for the listener's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestWebhookListen_PrintsAndVerifies(t *testing.T) {
	t.Parallel()
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"webhook-listen", "--addr", "127.0.0.1:0", "--secret", secret},
			env{getenv: func(string) string { return "" }, stdout: out, stderr: out, ready: func(a string) { ready <- a }})
	}()
	addr := <-ready
	send := func(sig string) int {
		body := []byte(`{"imp_uid":"imp_1","merchant_uid":"o-1","status":"paid"}`)
		req, _ := http.NewRequest("POST", "http://"+addr+"/hooks", bytes.NewReader(body))
		ts := time.Now().Unix()
		if sig == "" {
			sig = webhook.Sign(secret, "msg_1", ts, body)
		}
		req.Header.Set("webhook-id", "msg_1")
		req.Header.Set("webhook-timestamp", itoa64(ts))
		req.Header.Set("webhook-signature", sig)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := send(""); s != http.StatusOK {
		t.Fatalf("signed delivery answered %d", s)
	}
	if s := send("v1,AAAA"); s != http.StatusUnauthorized {
		t.Fatalf("forged delivery answered %d", s)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("webhook-listen exited %d: %s", code, out)
	}
	text := out.String()
	for _, want := range []string{"webhook-id=msg_1", `{"imp_uid":"imp_1","merchant_uid":"o-1","status":"paid"}`, "signature ok", "signature INVALID"} {
		if !strings.Contains(text, want) {
			t.Fatalf("output lacks %q:\n%s", want, text)
		}
	}
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }
