package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/payport/payport/dump"
	"github.com/payport/payport/postgres"
)

// keyRule is what the commands say about the server key: a dump carries
// secrets only as hashes keyed with it.
const keyRule = "secrets are copied only as hashes keyed with the server key: the target accepts the merchants' imp_secret, API keys, PG api keys and tokens, and signs webhooks with the same whsec_ secrets, only when it runs with the same key as the source (PAYPORT_SECRET_KEY, or the key file beside a SQLite database)"

// cmdExport implements `payport export`: every row of the database as a
// dump (package dump), to a file or standard output.
func cmdExport(ctx context.Context, args []string, e env) error {
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	fset := newFlagSet("export", &cfg, e.stderr)
	out := fset.String("out", "-", "file to write the dump to (mode 0600); - for standard output")
	if err := parseFlags(fset, args); err != nil {
		return err
	}
	src, engine, err := openRaw(ctx, cfg, true)
	if err != nil {
		return err
	}
	defer src.Close()
	key, keySource, err := exportKey(cfg)
	if err != nil {
		return err
	}
	meta := dump.Meta{PayportVersion: buildVersion()}
	if key != nil {
		meta.KeyCheck = keyCheck(key)
	}

	report, w, commit, abort := e.stderr, e.stdout, func() error { return nil }, func() {}
	if *out != "-" && *out != "" {
		report = e.stdout
		if w, commit, abort, err = createAtomically(*out); err != nil {
			return err
		}
	}
	st, err := dump.Export(ctx, src, engine, w, meta)
	if err == nil {
		err = commit()
	}
	if err != nil {
		abort()
		return fmt.Errorf("export: %w", err)
	}
	dest := "standard output"
	if *out != "-" && *out != "" {
		dest = *out
	}
	fmt.Fprintf(report, "payport: exported %d rows of %d tables from %s (schema version %d) to %s\n",
		st.Rows, len(st.Tables), engine, st.Header.SchemaVersion, dest)
	printTables(report, st)
	if key != nil {
		fmt.Fprintf(report, "payport: the source's server key is %s; %s. The dump records a check value of it (not the key), and import refuses a target with another key.\n", keySource, keyRule)
	} else {
		fmt.Fprintf(report, "payport: %s; no server key was given (%s), so import cannot verify it: set PAYPORT_SECRET_KEY on the target to the key the source runs with.\n", keyRule, keySource)
	}
	fmt.Fprintln(report, "payport: the dump holds key hashes, billing-key tokens and buyers' personal data: keep it private and delete it after the move.")
	return nil
}

// cmdImport implements `payport import`: a dump into a freshly migrated,
// empty database.
func cmdImport(ctx context.Context, args []string, e env) error {
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	fset := newFlagSet("import", &cfg, e.stderr)
	in := fset.String("in", "-", "the dump to read; - for standard input")
	if err := parseFlags(fset, args); err != nil {
		return err
	}
	var r io.Reader = os.Stdin
	if *in != "-" && *in != "" {
		f, err := os.Open(*in)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r = f
	}
	// A SQLite database without PAYPORT_SECRET_KEY uses the key file beside
	// it, which opening would create with a new random key: the imported
	// hashes would never match it.
	if !isPostgres(cfg.DatabaseURL) && cfg.SecretKey == "" {
		path, err := sqlitePath(cfg.DatabaseURL)
		if err != nil {
			return err
		}
		if _, err := os.Stat(path + ".key"); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("import: the target must run with the source's server key: set PAYPORT_SECRET_KEY to it, or copy the source's key file to %s first (%s)", path+".key", keyRule)
		}
	}

	// Migrate the target (and learn its key and schema version), then
	// write through a plain connection of its own.
	st, key, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	versioned, ok := st.(interface {
		SchemaVersion(context.Context) (int64, error)
	})
	if !ok {
		st.Close()
		return errors.New("import: the storage engine does not report its schema version")
	}
	version, err := versioned.SchemaVersion(ctx)
	st.Close()
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	dst, engine, err := openRaw(ctx, cfg, false)
	if err != nil {
		return err
	}
	defer dst.Close()

	check := func(h dump.Header) error {
		if h.SchemaVersion != version {
			return fmt.Errorf("%w: the dump (payport %s) has schema version %d and the target database %d: export and import with the same payport version (migrate the source first)",
				dump.ErrSchemaVersion, h.PayportVersion, h.SchemaVersion, version)
		}
		if h.KeyCheck != "" && !hmac.Equal([]byte(h.KeyCheck), []byte(keyCheck(key))) {
			return fmt.Errorf("the target runs with another server key than the dump's source: %s", keyRule)
		}
		return nil
	}
	stats, err := dump.Import(ctx, dst, engine, r, check)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Fprintf(e.stdout, "payport: imported %d rows into %d tables on %s (schema version %d) from a %s dump written by payport %s at %s\n",
		stats.Rows, len(stats.Tables), engine, version, stats.Header.Engine, stats.Header.PayportVersion, stats.Header.CreatedAt)
	printTables(e.stdout, stats)
	if engine == dump.Postgres {
		fmt.Fprintln(e.stdout, "payport: ids were kept; the identity sequences now continue after the largest imported ids")
	}
	if stats.Header.KeyCheck != "" {
		fmt.Fprintln(e.stdout, "payport: the server key matches the source's: the merchants' credentials and tokens work here")
	} else {
		fmt.Fprintf(e.stdout, "payport: the dump does not record its source's server key, so it was not checked: %s\n", keyRule)
	}
	return nil
}

func printTables(w io.Writer, st dump.Stats) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range st.Tables {
		fmt.Fprintf(tw, "  %s\t%d\n", t.Table, t.Rows)
	}
	_ = tw.Flush()
}

// openRaw opens the database of cfg with database/sql for the dump
// package and names its engine. An export opens a SQLite file read-only
// (and never creates it); an import opens it for writing with foreign keys
// enforced.
func openRaw(ctx context.Context, cfg config, readOnly bool) (*sql.DB, string, error) {
	if isPostgres(cfg.DatabaseURL) {
		masked := postgres.MaskURL(cfg.DatabaseURL)
		if readOnly {
			// postgres.Open checks the URL and reports connection
			// errors with the password masked.
			probe, err := postgres.Open(ctx, cfg.DatabaseURL)
			if err != nil {
				return nil, "", fmt.Errorf("open database %s (set PAYPORT_DATABASE_URL or --database): %w", masked, err)
			}
			probe.Close()
		}
		// Parsed as the pool parses it, so that pgxpool's pool_*
		// parameters are not sent to the server as settings.
		pcfg, err := pgxpool.ParseConfig(cfg.DatabaseURL)
		if err != nil {
			return nil, "", fmt.Errorf("open database %s: %w", masked, err)
		}
		db := stdlib.OpenDB(*pcfg.ConnConfig)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, "", fmt.Errorf("open database %s: %w", masked, err)
		}
		return db, dump.Postgres, nil
	}
	path, err := sqlitePath(cfg.DatabaseURL)
	if err != nil {
		return nil, "", err
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)"
	if readOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, "", fmt.Errorf("open database %s (set PAYPORT_DATABASE_URL or --database): %w", cfg.DatabaseURL, err)
		}
		dsn += "&mode=ro&_pragma=query_only(1)"
	} else {
		dsn += "&_pragma=foreign_keys(1)&_txlock=immediate"
	}
	db, err := sql.Open("sqlite", dsn)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, "", fmt.Errorf("open database %s: %w", cfg.DatabaseURL, err)
	}
	db.SetMaxOpenConns(1)
	return db, dump.SQLite, nil
}

// exportKey returns the source's server key when it is known without
// creating anything, and where it comes from.
func exportKey(cfg config) (key []byte, source string, err error) {
	if cfg.SecretKey != "" {
		key, err := serverKey(cfg.SecretKey, "")
		return key, "PAYPORT_SECRET_KEY", err
	}
	if isPostgres(cfg.DatabaseURL) {
		return nil, "PAYPORT_SECRET_KEY is not set", nil
	}
	path, err := sqlitePath(cfg.DatabaseURL)
	if err != nil {
		return nil, "", err
	}
	file := path + ".key"
	if _, err := os.Stat(file); err != nil {
		return nil, "PAYPORT_SECRET_KEY is not set and there is no key file " + file, nil
	}
	key, err = serverKey("", file)
	return key, "the contents of the key file " + file, err
}

// keyCheck is dump.Header.KeyCheck for a server key: a keyed hash of a
// fixed text (with a label no derivation of service.Keys uses), which tells
// two keys apart and reveals neither. It gives a guesser of weak keys
// nothing the rows do not: a REST token's id and hash already let one
// test a guess.
func keyCheck(key []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("payport dump: server key check"))
	return hex.EncodeToString(mac.Sum(nil))
}

// createAtomically returns a writer to a new temporary file beside path;
// commit syncs it and renames it to path, abort removes it. The file is
// created with mode 0600.
func createAtomically(path string) (w io.Writer, commit func() error, abort func(), err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("export: %w", err)
	}
	abort = func() {
		f.Close()
		os.Remove(f.Name())
	}
	commit = func() error {
		if err := f.Sync(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		return os.Rename(f.Name(), path)
	}
	return f, commit, abort, nil
}
