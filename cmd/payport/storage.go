package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/payport/payport"
	"github.com/payport/payport/gateway/sandbox"
	"github.com/payport/payport/postgres"
	"github.com/payport/payport/service"
	"github.com/payport/payport/sqlite"
)

// store is what the command needs of a storage engine: the contract,
// migrations and a readiness probe.
type store interface {
	payport.Store
	Migrate(ctx context.Context) error
	Ping(ctx context.Context) error
}

// openStore opens and migrates the database named by cfg.DatabaseURL and
// returns it with the server key.
func openStore(ctx context.Context, cfg config) (store, []byte, error) {
	if isPostgres(cfg.DatabaseURL) {
		return openPostgres(ctx, cfg)
	}
	path, err := sqlitePath(cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	key, err := serverKey(cfg.SecretKey, path+".key")
	if err != nil {
		return nil, nil, err
	}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("open database %s (set PAYPORT_DATABASE_URL or --database): %w", cfg.DatabaseURL, err)
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("migrate database %s: %w", cfg.DatabaseURL, err)
	}
	return db, key, nil
}

// openPostgres opens and migrates a PostgreSQL database. Nodes sharing it
// must share the server key, so PAYPORT_SECRET_KEY is required.
func openPostgres(ctx context.Context, cfg config) (store, []byte, error) {
	if cfg.SecretKey == "" {
		return nil, nil, errors.New("PAYPORT_SECRET_KEY: required with PostgreSQL (every node must use the same key of at least 32 characters)")
	}
	key, err := serverKey(cfg.SecretKey, "")
	if err != nil {
		return nil, nil, err
	}
	masked := postgres.MaskURL(cfg.DatabaseURL)
	db, err := postgres.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, fmt.Errorf("open database %s (set PAYPORT_DATABASE_URL or --database): %w", masked, err)
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("migrate database %s: %w", masked, err)
	}
	return db, key, nil
}

func isPostgres(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

// openService opens the store and builds the service over it.
func openService(ctx context.Context, cfg config) (*service.Service, store, error) {
	store, key, err := openStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	svc, err := newService(store, key, cfg, nil)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return svc, store, nil
}

// newService builds the service over an open store; obs, when not nil,
// observes its committed changes.
func newService(st store, key []byte, cfg config, obs service.Observer) (*service.Service, error) {
	return service.New(st, service.Config{Gateway: sandbox.New(), SecretKey: key, PublicURL: cfg.PublicURL, Observer: obs})
}

// sqlitePath extracts the file path of a `sqlite:PATH` database URL.
func sqlitePath(url string) (string, error) {
	switch {
	case strings.HasPrefix(url, "sqlite://"):
		return strings.TrimPrefix(url, "sqlite://"), nil
	case strings.HasPrefix(url, "sqlite:"):
		if p := strings.TrimPrefix(url, "sqlite:"); p != "" {
			return p, nil
		}
	}
	return "", fmt.Errorf("PAYPORT_DATABASE_URL: must look like sqlite:PATH or postgres://USER@HOST:PORT/DB, got %q", url)
}

// serverKey returns the key that hashes secrets and derives tokens: from
// PAYPORT_SECRET_KEY when set (required when several nodes share one
// database), else from a file beside the database, created on first use
// with mode 0600.
func serverKey(fromEnv, file string) ([]byte, error) {
	if fromEnv != "" {
		if len(fromEnv) < 32 {
			return nil, errors.New("PAYPORT_SECRET_KEY: must be at least 32 characters")
		}
		return []byte(fromEnv), nil
	}
	raw, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return createKeyFile(file)
	} else if err != nil {
		return nil, fmt.Errorf("read server key %s (or set PAYPORT_SECRET_KEY): %w", file, err)
	}
	key := strings.TrimSpace(string(raw))
	if len(key) < 32 {
		return nil, fmt.Errorf("server key file %s: must hold at least 32 characters", file)
	}
	return []byte(key), nil
}

func createKeyFile(file string) ([]byte, error) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	key := hex.EncodeToString(b)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another process created it first
		return serverKey("", file)
	} else if err != nil {
		return nil, fmt.Errorf("create server key %s (or set PAYPORT_SECRET_KEY): %w", file, err)
	}
	if _, err := f.WriteString(key + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("write server key %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write server key %s: %w", file, err)
	}
	return []byte(key), nil
}
