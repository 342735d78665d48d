package httpapi

import (
	"net/http"

	"github.com/payport/payport/service"
)

// order reads the order fields shared by the payment-creating operations.
func order(p *params) service.Order {
	return service.Order{
		MerchantUID:   p.str("merchant_uid"),
		Amount:        p.decimal("amount"),
		Currency:      p.str("currency"),
		Name:          p.str("name"),
		BuyerName:     p.str("buyer_name"),
		BuyerEmail:    p.str("buyer_email"),
		BuyerTel:      p.str("buyer_tel"),
		BuyerAddr:     p.str("buyer_addr"),
		BuyerPostcode: p.str("buyer_postcode"),
		CustomData:    p.jsonText("custom_data"),
		NoticeURL:     p.str("notice_url"),
	}
}

// sandboxPaymentInput reads the body of POST /sandbox/payments; its fields
// are named as in the payment record (decisions §6).
func sandboxPaymentInput(p *params) service.SandboxPaymentInput {
	return service.SandboxPaymentInput{
		Order:        order(p),
		Status:       p.str("status"),
		PayMethod:    p.str("pay_method"),
		PGProvider:   p.str("pg_provider"),
		Channel:      p.str("channel"),
		UserAgent:    p.str("user_agent"),
		FailReason:   p.str("fail_reason"),
		CancelReason: p.str("cancel_reason"),
		StartedAt:    p.int("started_at"),
		PaidAt:       p.int("paid_at"),
		Balance:      p.decimals("balance"),
	}
}

func (h *handler) sandboxPayment(w http.ResponseWriter, r *http.Request) {
	call(w, r, sandboxPaymentInput, h.svc.CreateSandboxPayment, toPaymentJSON)
}

func (h *handler) deposit(w http.ResponseWriter, r *http.Request) {
	p, err := h.svc.Deposit(r.Context(), merchantFrom(r), pathParam(r, "imp_uid"))
	respond(w, r, p, err, toPaymentJSON)
}
