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
	NextAttemptAt int64 // server time of the next delivery attempt
	// History lists the delivery attempts, oldest first; filled by
	// EventsByMerchant and EventByID only.
	History []Attempt
}

// Attempt is one delivery attempt of an event.
type Attempt struct {
	ID          int64
	EventID     int64
	AttemptedAt int64 // server time, UNIX seconds
	DurationMS  int64
	HTTPStatus  int    // 0 when no response arrived
	Error       string // network error or "", never the response body
}

// Event delivery states.
const (
	EventPending   = "pending"
	EventDelivered = "delivered"
	EventFailed    = "failed"
)
