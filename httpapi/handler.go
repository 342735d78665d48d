package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/payport/payport"
)

// call is the shape of most handlers: decode the body with read, run op
// for the authenticated merchant, and answer its result through view.
func call[In, Out, View any](w http.ResponseWriter, r *http.Request, read func(*params) In,
	op func(context.Context, payport.Merchant, In) (Out, error), view func(Out) View) {
	p, err := decodeBody(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	in := read(p)
	if p.err != nil {
		writeError(w, r, p.err)
		return
	}
	out, err := op(r.Context(), merchantFrom(r), in)
	respond(w, r, out, err, view)
}

// respond writes the failure envelope for err, or out through view.
func respond[Out, View any](w http.ResponseWriter, r *http.Request, out Out, err error, view func(Out) View) {
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, view(out))
}

// pathParam returns a path parameter decoded: the router matches the
// escaped path, so `user%40example.com` arrives as it was sent. A value
// that does not decode is returned as is (it then matches nothing).
func pathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if dec, err := url.PathUnescape(v); err == nil {
		return dec
	}
	return v
}
