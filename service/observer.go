package service

import (
	"time"

	"github.com/payport/payport"
)

// Observer learns of committed changes, for metrics. Its methods are called
// after the transaction that made the change committed; they must be cheap
// and safe for concurrent use.
type Observer interface {
	// PaymentChanged: a payment was recorded in, or moved to, status.
	PaymentChanged(status payport.Status)
	// Refunded: a refund of amount (minor units of currency) was made.
	Refunded(currency payport.Currency, amount int64)
	// ScheduleExecuted: a scheduled payment ran lag after its schedule_at
	// and ended in status.
	ScheduleExecuted(lag time.Duration, status payport.Status)
}

type noObserver struct{}

func (noObserver) PaymentChanged(payport.Status)                  {}
func (noObserver) Refunded(payport.Currency, int64)               {}
func (noObserver) ScheduleExecuted(time.Duration, payport.Status) {}
