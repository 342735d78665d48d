package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// readyz answers whether this node can serve: 200 {"status":"ok"} when
// storage answers within 2 s, else 503 {"status":"unavailable"} (the
// detail goes to the log). Load balancers route on it; /healthz only says
// the process is alive.
func (h *handler) readyz(w http.ResponseWriter, r *http.Request) {
	if h.ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := h.ready(ctx); err != nil {
			slog.WarnContext(r.Context(), "not ready", "request_id", requestID(r.Context()), "err", err)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
