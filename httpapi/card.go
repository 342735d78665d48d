package httpapi

import (
	"context"
	"net/http"

	"github.com/payport/payport"
	"github.com/payport/payport/service"
)

func card(p *params) service.CardInput {
	return service.CardInput{Card: payport.Card{
		Number: p.str("card_number"), Expiry: p.str("expiry"), Birth: p.str("birth"),
		PWD2Digit: p.str("pwd_2digit"), CVC: p.str("cvc"),
	}}
}

func chargeInput(p *params) service.ChargeInput {
	return service.ChargeInput{Order: order(p), TaxFree: p.decimal("tax_free"), VATAmount: p.int("vat_amount"), CardQuota: p.int("card_quota")}
}

func (h *handler) onetime(w http.ResponseWriter, r *http.Request) {
	call(w, r, func(p *params) service.OneTimeInput {
		return service.OneTimeInput{ChargeInput: chargeInput(p), Card: card(p), CustomerUID: p.str("customer_uid"), PG: p.str("pg")}
	}, h.svc.OneTime, toPaymentJSON)
}

func (h *handler) again(w http.ResponseWriter, r *http.Request) {
	call(w, r, func(p *params) service.AgainInput {
		return service.AgainInput{ChargeInput: chargeInput(p), CustomerUID: p.str("customer_uid")}
	}, h.svc.Again, toPaymentJSON)
}

func (h *handler) issueCustomer(w http.ResponseWriter, r *http.Request) {
	uid := pathParam(r, "customer_uid")
	call(w, r, func(p *params) service.CustomerInput {
		return service.CustomerInput{
			Card: card(p), PG: p.str("pg"), CustomerName: p.str("customer_name"), CustomerTel: p.str("customer_tel"),
			CustomerEmail: p.str("customer_email"), CustomerAddr: p.str("customer_addr"), CustomerPostcode: p.str("customer_postcode"),
		}
	}, func(ctx context.Context, m payport.Merchant, in service.CustomerInput) (payport.Customer, error) {
		return h.svc.IssueCustomer(ctx, m, uid, in)
	}, toCustomerJSON)
}

func (h *handler) customer(w http.ResponseWriter, r *http.Request) {
	c, err := h.svc.Customer(r.Context(), merchantFrom(r), pathParam(r, "customer_uid"))
	respond(w, r, c, err, toCustomerJSON)
}

func (h *handler) deleteCustomer(w http.ResponseWriter, r *http.Request) {
	c, err := h.svc.DeleteCustomer(r.Context(), merchantFrom(r), pathParam(r, "customer_uid"))
	respond(w, r, c, err, toCustomerJSON)
}

func (h *handler) cancel(w http.ResponseWriter, r *http.Request) {
	call(w, r, func(p *params) service.CancelInput {
		return service.CancelInput{
			IMPUID: p.str("imp_uid"), MerchantUID: p.str("merchant_uid"), Amount: p.decimal("amount"),
			Checksum: p.decimal("checksum"), Reason: p.str("reason"), RefundHolder: p.str("refund_holder"),
			RefundBank: p.str("refund_bank"), RefundAccount: p.str("refund_account"), EnableWebhook: p.bool("enable_webhook"),
		}
	}, h.svc.Cancel, toPaymentJSON)
}

func (h *handler) vbank(w http.ResponseWriter, r *http.Request) {
	call(w, r, func(p *params) service.VBankInput {
		return service.VBankInput{
			Order: order(p), VBankCode: p.str("vbank_code"), VBankDue: p.int("vbank_due"), VBankHolder: p.str("vbank_holder"),
			PG: p.str("pg"), PGAPIKey: r.URL.Query().Get("pg_api_key"), VATAmount: p.int("vat_amount"),
		}
	}, h.svc.IssueVBank, toPaymentJSON)
}
