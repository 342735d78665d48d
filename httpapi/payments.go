package httpapi

import (
	"net/http"
)

func (h *handler) payment(w http.ResponseWriter, r *http.Request) {
	p, err := h.svc.Payment(r.Context(), merchantFrom(r), pathParam(r, "imp_uid"))
	respond(w, r, p, err, toPaymentJSON)
}

func (h *handler) balance(w http.ResponseWriter, r *http.Request) {
	b, err := h.svc.PaymentBalance(r.Context(), merchantFrom(r), pathParam(r, "imp_uid"))
	respond(w, r, b, err, toBalanceJSON)
}

func (h *handler) findPayment(w http.ResponseWriter, r *http.Request) {
	p, err := h.svc.FindPayment(r.Context(), merchantFrom(r), pathParam(r, "merchant_uid"),
		pathParam(r, "payment_status"), r.URL.Query().Get("sorting"))
	respond(w, r, p, err, toPaymentJSON)
}

// payments answers GET /payments: 200 when every identifier was found, 207
// when some were, 404 when none (decisions §1.3). Arrays may be written
// `imp_uid[]=`, `imp_uid[0]=` or `imp_uid=` (decisions §1.7).
func (h *handler) payments(w http.ResponseWriter, r *http.Request) {
	q, err := decodeForm(r.URL.Query())
	if err != nil {
		writeError(w, r, err)
		return
	}
	impUIDs, merchantUIDs := q.strs("imp_uid"), q.strs("merchant_uid")
	if q.err != nil {
		writeError(w, r, q.err)
		return
	}
	found, complete, err := h.svc.Payments(r.Context(), merchantFrom(r), impUIDs, merchantUIDs)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]paymentJSON, len(found))
	for i, p := range found {
		out[i] = toPaymentJSON(p)
	}
	status := http.StatusOK
	if !complete {
		status = http.StatusMultiStatus
	}
	writeOK(w, status, out)
}
