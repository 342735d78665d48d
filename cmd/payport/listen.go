package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/payport/payport/webhook"
)

// cmdWebhookListen runs a tiny webhook receiver for local development: it
// prints every delivery and, given the merchant's secret, whether its
// Standard Webhooks signature verifies. It answers 200, or 401 when a
// secret is given and the signature is wrong.
func cmdWebhookListen(ctx context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("webhook-listen", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	addr := fs.String("addr", "127.0.0.1:9000", "listen address")
	port := fs.Int("port", 0, "listen on 127.0.0.1:PORT (overrides --addr)")
	secret := fs.String("secret", "", "the merchant's whsec_ secret (payport merchant webhook-secret); verify signatures")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *port != 0 {
		*addr = fmt.Sprintf("127.0.0.1:%d", *port)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("webhook-listen: listen on %s (set --addr or --port): %w", *addr, err)
	}
	srv := &http.Server{Handler: listenHandler(*secret, e.stdout), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stdout, "payport webhook-listen on http://%s/ (Ctrl-C to stop)\n", ln.Addr())
	if e.ready != nil {
		e.ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func listenHandler(secret string, out io.Writer) http.Handler {
	var mu sync.Mutex // deliveries arrive concurrently; print one at a time
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "read body", http.StatusBadRequest)
			return
		}
		verdict := "signature not checked (no --secret)"
		status := http.StatusOK
		if secret != "" {
			if err := webhook.Verify(secret, r.Header, body, time.Now(), 5*time.Minute); err != nil {
				verdict, status = "signature INVALID: "+err.Error(), http.StatusUnauthorized
			} else {
				verdict = "signature ok"
			}
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, "%s %s %s webhook-id=%s content-type=%s\n  %s\n  %s\n", time.Now().Format(time.RFC3339),
			r.Method, r.URL.Path, r.Header.Get("webhook-id"), r.Header.Get("Content-Type"), body, verdict)
		w.WriteHeader(status)
	})
}
