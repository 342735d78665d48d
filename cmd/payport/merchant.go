package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/payport/payport"
	"github.com/payport/payport/service"
)

func cmdMerchant(ctx context.Context, args []string, e env) error {
	if len(args) == 0 {
		return usageError("merchant: missing subcommand (create, list, set, pg, webhook-secret)")
	}
	cfg, err := loadConfig(e.getenv)
	if err != nil {
		return err
	}
	sub := map[string]func(context.Context, *config, []string, env) error{
		"create": merchantCreate, "list": merchantList, "set": merchantSet, "pg": merchantPG,
		"webhook-secret": merchantWebhookSecret,
	}[args[0]]
	if sub == nil {
		return usageError("merchant: unknown subcommand %q", args[0])
	}
	return sub(ctx, &cfg, args[1:], e)
}

// withService opens the database, runs fn and closes it.
func withService(ctx context.Context, cfg config, fn func(*service.Service) error) error {
	svc, store, err := openService(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	return fn(svc)
}

func merchantCreate(ctx context.Context, cfg *config, args []string, e env) error {
	fs := newFlagSet("merchant create", cfg, e.stderr)
	name := fs.String("name", "", "merchant name (required)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *name == "" {
		return usageError("merchant create: --name is required")
	}
	return withService(ctx, *cfg, func(svc *service.Service) error {
		cred, err := svc.CreateMerchant(ctx, *name)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(e.stdout).Encode(cred)
		}
		fmt.Fprintf(e.stdout, "created merchant %d %q (credentials are shown only this once)\n  imp_key     %s\n  imp_secret  %s\n  api_key     %s\n",
			cred.MerchantID, *name, cred.IMPKey, cred.IMPSecret, cred.APIKey)
		return nil
	})
}

// merchantView is what the CLI shows of a merchant: never a secret.
type merchantView struct {
	MerchantID         int64  `json:"merchant_id"`
	Name               string `json:"name"`
	IMPKey             string `json:"imp_key"`
	NotificationURL    string `json:"notification_url"`
	WebhookContentType string `json:"webhook_content_type"`
	ScheduleListPaged  bool   `json:"schedule_list_paged"`
	CreatedAt          int64  `json:"created_at"`
}

func viewOf(m payport.Merchant) merchantView {
	return merchantView{m.ID, m.Name, m.IMPKey, m.NotificationURL, m.WebhookContentType, m.ScheduleListPaged, m.CreatedAt}
}

func merchantList(ctx context.Context, cfg *config, args []string, e env) error {
	fs := newFlagSet("merchant list", cfg, e.stderr)
	asJSON := fs.Bool("json", false, "print a JSON array")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return withService(ctx, *cfg, func(svc *service.Service) error {
		ms, err := svc.Merchants(ctx)
		if err != nil {
			return err
		}
		views := make([]merchantView, len(ms))
		for i, m := range ms {
			views[i] = viewOf(m)
		}
		if *asJSON {
			return json.NewEncoder(e.stdout).Encode(views)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tIMP_KEY\tNOTIFICATION_URL\tWEBHOOK\tSCHEDULE_LIST_PAGED")
		for _, v := range views {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%t\n", v.MerchantID, v.Name, v.IMPKey, v.NotificationURL, v.WebhookContentType, v.ScheduleListPaged)
		}
		return tw.Flush()
	})
}

func merchantSet(ctx context.Context, cfg *config, args []string, e env) error {
	fs := newFlagSet("merchant set", cfg, e.stderr)
	impKey := fs.String("imp-key", "", "the merchant's imp_key (required)")
	var set service.MerchantSettings
	fs.Func("notification-url", "webhook Notification URL (empty to clear)", func(v string) error { set.NotificationURL = &v; return nil })
	fs.Func("webhook-content-type", "json or form", func(v string) error { set.WebhookContentType = &v; return nil })
	fs.Func("schedule-list-paged", "true or false", func(v string) error {
		b, err := strconv.ParseBool(v)
		set.ScheduleListPaged = &b
		return err
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *impKey == "" {
		return usageError("merchant set: --imp-key is required")
	}
	return withService(ctx, *cfg, func(svc *service.Service) error {
		m, err := svc.UpdateMerchantSettings(ctx, *impKey, set)
		if err != nil {
			return err
		}
		return printJSON(e.stdout, viewOf(m))
	})
}

func merchantPG(ctx context.Context, cfg *config, args []string, e env) error {
	if len(args) == 0 {
		return usageError("merchant pg: missing subcommand (add, list, remove)")
	}
	fs := newFlagSet("merchant pg "+args[0], cfg, e.stderr)
	impKey := fs.String("imp-key", "", "the merchant's imp_key (required)")
	var provider, pgID *string
	var asJSON *bool
	switch args[0] {
	case "add", "remove":
		provider = fs.String("provider", "", "PG provider code, e.g. nice, html5_inicis, kcp (required)")
		pgID = fs.String("pg-id", "", "gateway merchant id (add: defaults to the provider's test id)")
	case "list":
		asJSON = fs.Bool("json", false, "print a JSON array")
	default:
		return usageError("merchant pg: unknown subcommand %q", args[0])
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *impKey == "" {
		return usageError("merchant pg %s: --imp-key is required", args[0])
	}
	return withService(ctx, *cfg, func(svc *service.Service) error {
		switch args[0] {
		case "add":
			return pgAdd(ctx, svc, *impKey, *provider, *pgID, e.stdout)
		case "remove":
			if *provider == "" || *pgID == "" {
				return usageError("merchant pg remove: --provider and --pg-id are required")
			}
			return svc.RemovePGSetting(ctx, *impKey, *provider, *pgID)
		default:
			return pgList(ctx, svc, *impKey, *asJSON, e.stdout)
		}
	})
}

// pgView is what the CLI shows of a PG setting.
type pgView struct {
	PGProvider string `json:"pg_provider"`
	PGID       string `json:"pg_id"`
	NonAuth    bool   `json:"nonauth"`
	VBank      bool   `json:"vbank"`
	APIKey     string `json:"api_key,omitempty"`
}

func pgAdd(ctx context.Context, svc *service.Service, impKey, provider, pgID string, out io.Writer) error {
	if provider == "" {
		return usageError("merchant pg add: --provider is required")
	}
	n, err := svc.AddPGSetting(ctx, impKey, provider, pgID)
	if err != nil {
		return err
	}
	return printJSON(out, pgView{n.Setting.Provider, n.Setting.PGID, n.Setting.NonAuth, n.Setting.VBank, n.APIKey})
}

func pgList(ctx context.Context, svc *service.Service, impKey string, asJSON bool, out io.Writer) error {
	sets, err := svc.PGSettings(ctx, impKey)
	if err != nil {
		return err
	}
	views := make([]pgView, len(sets))
	for i, s := range sets {
		views[i] = pgView{PGProvider: s.Provider, PGID: s.PGID, NonAuth: s.NonAuth, VBank: s.VBank}
	}
	if asJSON {
		return json.NewEncoder(out).Encode(views)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PG_PROVIDER\tPG_ID\tNONAUTH\tVBANK")
	for _, v := range views {
		fmt.Fprintf(tw, "%s\t%s\t%t\t%t\n", v.PGProvider, v.PGID, v.NonAuth, v.VBank)
	}
	return tw.Flush()
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func merchantWebhookSecret(ctx context.Context, cfg *config, args []string, e env) error {
	fs := newFlagSet("merchant webhook-secret", cfg, e.stderr)
	impKey := fs.String("imp-key", "", "the merchant's imp_key (required)")
	rotate := fs.Bool("rotate", false, "replace the secret with a new one first")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *impKey == "" {
		return usageError("merchant webhook-secret: --imp-key is required")
	}
	return withService(ctx, *cfg, func(svc *service.Service) error {
		secret, err := svc.MerchantWebhookSecret(ctx, *impKey, *rotate)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(e.stdout, secret)
		return err
	})
}
