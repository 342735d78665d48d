package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/payport/payport"
	"github.com/payport/payport/httpapi"
	"github.com/payport/payport/metrics"
	"github.com/payport/payport/scheduler"
	"github.com/payport/payport/service"
	"github.com/payport/payport/webhook"
)

func cmdServe(ctx context.Context, args []string, e env) error {
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	fs := newFlagSet("serve", &cfg, e.stderr)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address; env PAYPORT_ADDR")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	logger, err := newLogger(cfg, e.stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s (set PAYPORT_ADDR or --addr): %w", cfg.Addr, err)
	}
	defer ln.Close()
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + ln.Addr().String()
	}
	store, key, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	pools, _ := store.(metrics.Pools)
	m := metrics.New(store, pools)
	svc, err := newService(store, key, cfg, m)
	if err != nil {
		return err
	}
	if err := ensureDemoMerchant(ctx, svc, e.stdout); err != nil {
		return err
	}
	// The scheduler and the webhook dispatcher stop claiming work when ctx
	// ends; what they hold is finished (a delivery) or rolled back (a
	// batch of schedules), so nothing claimed is lost.
	sched := scheduler.New(svc, logger)
	svc.OnSchedulesDue(sched.Notify)
	disp := &webhook.Dispatcher{Store: store, Clock: payport.SystemClock{}, Secret: svc.WebhookSecret, Logger: logger,
		Timeout: cfg.WebhookTimeout, OnAttempt: m.WebhookAttempt}
	svc.OnWebhookDue(disp.Notify)
	bgCtx, stopBG := context.WithCancel(ctx)
	var bg sync.WaitGroup
	bg.Go(func() { _ = sched.Run(bgCtx) })
	bg.Go(func() { _ = disp.Run(bgCtx) })
	defer bg.Wait()
	defer stopBG()
	srv := httpapi.NewServer(cfg.Addr, httpapi.New(svc, httpapi.Options{Logger: logger, Sandbox: cfg.Sandbox, Metrics: m, Ready: store.Ping}))
	return serveUntilDone(ctx, srv, ln, cfg, logger, e)
}

// serveUntilDone serves until ctx ends (SIGINT/SIGTERM), then stops
// accepting and gives in-flight requests cfg.ShutdownTimeout to finish.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, cfg config, logger *slog.Logger, e env) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	logger.Info("payport listening", "addr", ln.Addr().String(), "version", buildVersion(), "sandbox", cfg.Sandbox)
	if e.ready != nil {
		e.ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// ensureDemoMerchant creates a merchant on an empty database and prints its
// credentials once: payport keeps only their hashes.
func ensureDemoMerchant(ctx context.Context, svc *service.Service, out io.Writer) error {
	ms, err := svc.Merchants(ctx)
	if err != nil || len(ms) > 0 {
		return err
	}
	cred, err := svc.CreateMerchant(ctx, "demo")
	if err != nil {
		return fmt.Errorf("create demo merchant: %w", err)
	}
	line := strings.Repeat("=", 72)
	fmt.Fprintf(out, "%s\npayport: created the demo merchant (credentials are shown only this once)\n"+
		"  merchant_id  %d\n  imp_key      %s\n  imp_secret   %s\n  api_key      %s\n%s\n",
		line, cred.MerchantID, cred.IMPKey, cred.IMPSecret, cred.APIKey, line)
	return nil
}

func newLogger(cfg config, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return nil, fmt.Errorf("PAYPORT_LOG_LEVEL: must be debug, info, warn or error, got %q", cfg.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	format := cfg.LogFormat
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				format = "text"
			}
		}
	}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("PAYPORT_LOG_FORMAT: must be json or text, got %q", cfg.LogFormat)
}

func cmdMigrate(ctx context.Context, args []string, e env) error {
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	if err := parseFlags(newFlagSet("migrate", &cfg, e.stderr), args); err != nil {
		return err
	}
	store, _, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "payport: database is up to date")
	return store.Close()
}
