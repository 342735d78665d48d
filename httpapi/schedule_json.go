package httpapi

import (
	"encoding/json"

	"github.com/payport/payport"
)

// scheduleJSON is the wire form of a schedule result (spec 2.4):
// imp_uid, payment_status and fail_reason are null until executed.
type scheduleJSON struct {
	CustomerUID    string      `json:"customer_uid"`
	MerchantUID    string      `json:"merchant_uid"`
	IMPUID         *string     `json:"imp_uid"`
	ScheduleAt     int64       `json:"schedule_at"`
	ExecutedAt     int64       `json:"executed_at"`
	RevokedAt      int64       `json:"revoked_at"`
	Amount         json.Number `json:"amount"`
	Name           *string     `json:"name"`
	BuyerName      *string     `json:"buyer_name"`
	BuyerEmail     *string     `json:"buyer_email"`
	BuyerTel       *string     `json:"buyer_tel"`
	BuyerAddr      *string     `json:"buyer_addr"`
	BuyerPostcode  *string     `json:"buyer_postcode"`
	CustomData     *string     `json:"custom_data"`
	ScheduleStatus string      `json:"schedule_status"`
	PaymentStatus  *string     `json:"payment_status"`
	FailReason     *string     `json:"fail_reason"`
}

// schedulePageJSON is the paged schedule list of decisions §5.4.
type schedulePageJSON struct {
	Total    int            `json:"total"`
	Previous int            `json:"previous"`
	Next     int            `json:"next"`
	List     []scheduleJSON `json:"list"`
}

func toScheduleJSON(s payport.Schedule) scheduleJSON {
	return scheduleJSON{
		CustomerUID: s.CustomerUID, MerchantUID: s.MerchantUID, IMPUID: null(s.IMPUID), ScheduleAt: s.ScheduleAt,
		ExecutedAt: s.ExecutedAt, RevokedAt: s.RevokedAt, Amount: amount(s.Amount, s.Currency), Name: null(s.Name),
		BuyerName: null(s.BuyerName), BuyerEmail: null(s.BuyerEmail), BuyerTel: null(s.BuyerTel), BuyerAddr: null(s.BuyerAddr),
		BuyerPostcode: null(s.BuyerPostcode), CustomData: null(s.CustomData), ScheduleStatus: string(s.Status),
		PaymentStatus: null(string(s.PaymentStatus)), FailReason: null(s.FailReason),
	}
}

func toScheduleList(list []payport.Schedule) []scheduleJSON {
	out := make([]scheduleJSON, len(list))
	for i, s := range list {
		out[i] = toScheduleJSON(s)
	}
	return out
}

// webhookJSON is an entry of payport's delivery log (GET /sandbox/webhooks).
type webhookJSON struct {
	ID             int64         `json:"id"`
	WebhookID      string        `json:"webhook_id"`
	URL            string        `json:"url"`
	IMPUID         string        `json:"imp_uid"`
	MerchantUID    string        `json:"merchant_uid"`
	Status         string        `json:"status"`
	CancellationID *string       `json:"cancellation_id"`
	State          string        `json:"state"`
	CreatedAt      int64         `json:"created_at"`
	NextAttemptAt  int64         `json:"next_attempt_at"`
	Attempts       []attemptJSON `json:"attempts"`
}

type attemptJSON struct {
	AttemptedAt int64   `json:"attempted_at"`
	DurationMS  int64   `json:"duration_ms"`
	HTTPStatus  int     `json:"http_status"`
	Error       *string `json:"error"`
}

func toWebhookJSON(e payport.Event) webhookJSON {
	out := webhookJSON{
		ID: e.ID, WebhookID: e.WebhookID, URL: e.URL, IMPUID: e.IMPUID, MerchantUID: e.MerchantUID, Status: e.Status,
		CancellationID: null(e.CancelID), State: e.State, CreatedAt: e.CreatedAt, NextAttemptAt: e.NextAttemptAt,
		Attempts: make([]attemptJSON, len(e.History)),
	}
	for i, a := range e.History {
		out.Attempts[i] = attemptJSON{a.AttemptedAt, a.DurationMS, a.HTTPStatus, null(a.Error)}
	}
	return out
}

func toWebhookList(evs []payport.Event) []webhookJSON {
	out := make([]webhookJSON, len(evs))
	for i, e := range evs {
		out[i] = toWebhookJSON(e)
	}
	return out
}
