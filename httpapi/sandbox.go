package httpapi

import "github.com/payport/payport/service"

// sandboxPaymentInput reads the body of POST /sandbox/payments; its fields
// are named as in the payment record (decisions §6).
func sandboxPaymentInput(p *params) service.SandboxPaymentInput {
	return service.SandboxPaymentInput{
		MerchantUID:   p.str("merchant_uid"),
		Amount:        p.decimal("amount"),
		Currency:      p.str("currency"),
		Status:        p.str("status"),
		PayMethod:     p.str("pay_method"),
		PGProvider:    p.str("pg_provider"),
		Channel:       p.str("channel"),
		Name:          p.str("name"),
		BuyerName:     p.str("buyer_name"),
		BuyerEmail:    p.str("buyer_email"),
		BuyerTel:      p.str("buyer_tel"),
		BuyerAddr:     p.str("buyer_addr"),
		BuyerPostcode: p.str("buyer_postcode"),
		CustomData:    p.jsonText("custom_data"),
		UserAgent:     p.str("user_agent"),
		FailReason:    p.str("fail_reason"),
		CancelReason:  p.str("cancel_reason"),
		StartedAt:     p.int("started_at"),
		PaidAt:        p.int("paid_at"),
	}
}
