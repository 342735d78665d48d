package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/payport/payport"
	"github.com/payport/payport/service"
)

func (h *handler) schedule(w http.ResponseWriter, r *http.Request) {
	call(w, r, func(p *params) service.ScheduleInput {
		in := service.ScheduleInput{
			CustomerUID: p.str("customer_uid"), Card: card(p), PG: p.str("pg"),
			Customer: service.CustomerInput{
				CustomerName: p.str("customer_name"), CustomerTel: p.str("customer_tel"), CustomerEmail: p.str("customer_email"),
				CustomerAddr: p.str("customer_addr"), CustomerPostcode: p.str("customer_postcode"),
			},
		}
		for i, item := range p.objects("schedules") {
			in.Schedules = append(in.Schedules, service.ScheduleItem{ChargeInput: chargeInput(item), ScheduleAt: item.int("schedule_at")})
			p.adopt(fmt.Sprintf("schedules[%d].", i), item)
		}
		return in
	}, h.svc.Schedule, toScheduleList)
}

func (h *handler) unschedule(w http.ResponseWriter, r *http.Request) {
	call(w, r, func(p *params) service.UnscheduleInput {
		return service.UnscheduleInput{CustomerUID: p.str("customer_uid"), MerchantUIDs: p.strs("merchant_uid")}
	}, h.svc.Unschedule, toScheduleList)
}

// schedules answers the schedule list: the array of spec 4.11, or the
// paged object for merchants with schedule_list_paged (decisions §5.4).
func (h *handler) schedules(w http.ResponseWriter, r *http.Request) {
	q, err := decodeForm(r.URL.Query())
	if err != nil {
		writeError(w, r, err)
		return
	}
	status := q.str("schedule-status")
	if status == "" {
		status = q.str("schedule_status")
	}
	in := service.ScheduleListInput{CustomerUID: pathParam(r, "customer_uid"), From: q.int("from"), To: q.int("to"), Status: status, Page: q.int("page")}
	if q.err != nil {
		writeError(w, r, q.err)
		return
	}
	m := merchantFrom(r)
	list, err := h.svc.Schedules(r.Context(), m, in)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if !m.ScheduleListPaged {
		writeOK(w, http.StatusOK, toScheduleList(list.Schedules))
		return
	}
	writeOK(w, http.StatusOK, schedulePageJSON{Total: list.Total, Previous: list.Previous, Next: list.Next, List: toScheduleList(list.Schedules)})
}

func (h *handler) scheduleByMerchantUID(w http.ResponseWriter, r *http.Request) {
	s, err := h.svc.ScheduleByMerchantUID(r.Context(), merchantFrom(r), pathParam(r, "merchant_uid"))
	respond(w, r, s, err, toScheduleJSON)
}

func (h *handler) clock(w http.ResponseWriter, r *http.Request) {
	writeOK(w, http.StatusOK, h.svc.MerchantClock(merchantFrom(r)))
}

func (h *handler) advanceClock(w http.ResponseWriter, r *http.Request) {
	call(w, r, func(p *params) *int64 { return p.int("seconds") }, h.svc.AdvanceClock, func(c service.Clock) service.Clock { return c })
}

func (h *handler) webhooks(w http.ResponseWriter, r *http.Request) {
	q, err := decodeForm(r.URL.Query())
	if err != nil {
		writeError(w, r, err)
		return
	}
	limit := q.int("limit")
	if q.err != nil {
		writeError(w, r, q.err)
		return
	}
	evs, err := h.svc.Webhooks(r.Context(), merchantFrom(r), limit)
	respond(w, r, evs, err, toWebhookList)
}

func (h *handler) redeliver(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		writeError(w, r, payport.Errorf(payport.KindNotFound, "%s", service.MsgWebhookNotFound))
		return
	}
	call(w, r, func(*params) int64 { return id }, func(ctx context.Context, m payport.Merchant, id int64) (payport.Event, error) {
		return h.svc.Redeliver(ctx, m, id)
	}, toWebhookJSON)
}
