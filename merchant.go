package payport

// Merchant is a tenant of the service: one REST key pair, any number of API
// keys, PG settings, webhook settings and a sandbox test clock. Secrets are
// held only as keyed hashes.
type Merchant struct {
	ID                 int64
	Name               string
	IMPKey             string // public identifier of the REST key pair
	IMPSecretHash      []byte // keyed hash of imp_secret
	NotificationURL    string // "" when none is set
	WebhookContentType string // "json" or "form"
	WebhookMaxAttempts int
	ScheduleListPaged  bool
	WebhookSecretID    string // random id; the signing secret is derived from it with the server key
	ClockOffset        int64  // seconds the merchant's sandbox test clock is ahead of the server's
	CreatedAt          int64
}

// Webhook content types.
const (
	WebhookJSON = "json"
	WebhookForm = "form"
)

// DefaultWebhookMaxAttempts is the delivery attempt limit of a new merchant.
const DefaultWebhookMaxAttempts = 8

// APIKey is a credential for the sign-in API, stored only as a keyed hash.
type APIKey struct {
	Hash       []byte
	MerchantID int64
	CreatedAt  int64
}

// PGSetting is one payment-gateway contract of a merchant (decisions §4.1).
type PGSetting struct {
	ID         int64
	MerchantID int64
	Provider   string
	PGID       string
	NonAuth    bool   // usable for non-authenticated (API) card payments
	VBank      bool   // usable for virtual accounts
	APIKeyHash []byte // keyed hash of the gateway api_key, when the provider has one
	CreatedAt  int64
}
