package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"
)

// config is the service's configuration: defaults, overridden by
// environment variables, overridden by flags.
type config struct {
	Addr            string
	DatabaseURL     string
	SecretKey       string // PAYPORT_SECRET_KEY; never printed
	PublicURL       string
	Sandbox         bool
	LogFormat       string // "json" or "text"; "" picks text on a terminal
	LogLevel        string
	ShutdownTimeout time.Duration
	WebhookTimeout  time.Duration // one webhook delivery; a crashed node's claims return after 2× this + 10 s
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		Addr:            "127.0.0.1:8080",
		DatabaseURL:     "sqlite:./payport.db",
		Sandbox:         true,
		LogLevel:        "info",
		ShutdownTimeout: 10 * time.Second,
		WebhookTimeout:  30 * time.Second,
	}
	str := map[string]*string{
		"PAYPORT_ADDR": &c.Addr, "PAYPORT_DATABASE_URL": &c.DatabaseURL, "PAYPORT_SECRET_KEY": &c.SecretKey,
		"PAYPORT_PUBLIC_URL": &c.PublicURL, "PAYPORT_LOG_FORMAT": &c.LogFormat, "PAYPORT_LOG_LEVEL": &c.LogLevel,
	}
	for name, dst := range str {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	if v := getenv("PAYPORT_SANDBOX"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("PAYPORT_SANDBOX: must be true or false, got %q", v)
		}
		c.Sandbox = b
	}
	for name, dst := range map[string]*time.Duration{"PAYPORT_SHUTDOWN_TIMEOUT": &c.ShutdownTimeout, "PAYPORT_WEBHOOK_TIMEOUT": &c.WebhookTimeout} {
		if v := getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return c, fmt.Errorf("%s: must be a positive duration such as 10s, got %q", name, v)
			}
			*dst = d
		}
	}
	return c, nil
}

// newFlagSet returns a flag set for a subcommand that reports errors as
// return values, with --database bound to c.
func newFlagSet(name string, c *config, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.DatabaseURL, "database", c.DatabaseURL, "database URL (sqlite:PATH); env PAYPORT_DATABASE_URL")
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}
