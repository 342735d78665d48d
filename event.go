package payport

// Event is a webhook outbox row: written in the same transaction as the
// change it reports, delivered later by the dispatcher.
type Event struct {
	ID            int64
	WebhookID     string // stays the same across retries and redeliveries
	MerchantID    int64
	URL           string
	Type          string // "paid", "failed", "ready", "cancelled"
	IMPUID        string
	MerchantUID   string
	Status        string
	CancelID      string
	CreatedAt     int64
	State         string // "pending", "delivered", "failed"
	Attempts      int
	NextAttemptAt int64
}

// Event delivery states.
const (
	EventPending   = "pending"
	EventDelivered = "delivered"
	EventFailed    = "failed"
)
