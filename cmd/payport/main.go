// Command payport is the payport service and its administration CLI:
// serve, migrate, merchant management and version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = ""

const usage = `payport — an I'mport (PortOne) V1 compatible payment service

Usage:
  payport serve [--addr ADDR] [--database URL]
  payport migrate [--database URL]
  payport export [--database URL] [--out FILE]
  payport import [--database URL] [--in FILE]
  payport merchant create --name NAME [--json]
  payport merchant list [--json]
  payport merchant set --imp-key KEY [--notification-url URL] [--webhook-content-type json|form] [--schedule-list-paged=true|false]
  payport merchant pg add --imp-key KEY --provider PROVIDER [--pg-id ID]
  payport merchant pg list --imp-key KEY [--json]
  payport merchant pg remove --imp-key KEY --provider PROVIDER --pg-id ID
  payport merchant webhook-secret --imp-key KEY [--rotate]
  payport webhook-listen [--addr 127.0.0.1:9000] [--secret whsec_…]
  payport version

Environment: PAYPORT_ADDR, PAYPORT_DATABASE_URL, PAYPORT_SECRET_KEY, PAYPORT_PUBLIC_URL,
PAYPORT_SANDBOX, PAYPORT_LOG_FORMAT, PAYPORT_LOG_LEVEL, PAYPORT_SHUTDOWN_TIMEOUT (see README.md).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr}))
}

// env is what a run of the command sees of the outside world, so tests can
// run it in-process.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	// ready, when set, receives the listening address once serve accepts.
	ready func(addr string)
}

// run executes one command line and returns the process exit code.
func run(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = cmdServe(ctx, args[1:], e)
	case "migrate":
		err = cmdMigrate(ctx, args[1:], e)
	case "export":
		err = cmdExport(ctx, args[1:], e)
	case "import":
		err = cmdImport(ctx, args[1:], e)
	case "merchant":
		err = cmdMerchant(ctx, args[1:], e)
	case "webhook-listen":
		err = cmdWebhookListen(ctx, args[1:], e)
	case "version":
		fmt.Fprintln(e.stdout, "payport", buildVersion())
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, usage)
	default:
		err = usageError("unknown command %q", args[0])
	}
	var ue *usageErr
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue), errors.Is(err, flag.ErrHelp):
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(e.stderr, "payport:", err)
		}
		fmt.Fprint(e.stderr, usage)
		return 2
	default:
		fmt.Fprintln(e.stderr, "payport:", err)
		return 1
	}
}

type usageErr struct{ msg string }

func (u *usageErr) Error() string { return u.msg }

func usageError(format string, args ...any) error {
	return &usageErr{msg: fmt.Sprintf(format, args...)}
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
