package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
)

// This file is the one flow of an HTTP request, whichever transport carries it: net/http
// (ServeHTTP) or the fast path (fastpath.go). A transport reads the head into an
// httpHead, asks decide what to do with it, reads the body and hands it to serveJSON with
// a responder that writes the answer; it makes no decision of its own beyond what it can
// carry. The fast path carries only JSON-RPC answers (verdict serveRPC, 200, no extra
// header fields) and hands every other request to net/http, which writes the refusals.

// contentType is the media type of every JSON-RPC response.
const contentType = "application/json"

// errBodyTooLarge reports a request body over Config.BodyLimit.
var errBodyTooLarge = errors.New("request body too large")

// httpHead is what the HTTP flow reads of a request head, whichever transport read it.
type httpHead struct {
	method        string
	host          string // Host header; "" when absent
	contentType   string // first Content-Type value; "" when absent
	contentLength int64  // -1 when unknown (a chunked body)
	origin        string // Origin header
	hasOrigin     bool   // an Origin header was sent (browsers always send one)
	upgrade       bool   // "Upgrade: websocket"
	preflight     bool   // OPTIONS with Access-Control-Request-Method: a CORS preflight
	localPort     string // port the connection came in on; read for WebSocket upgrades only
}

// verdict is the flow's decision on a request head.
type verdict int

const (
	serveRPC       verdict = iota // a JSON-RPC POST: read the body and answer it
	serveHealth                   // any other GET: Config.Pages, or 200 with an empty body (go-ethereum's health check)
	serveWebSocket                // a WebSocket upgrade
	servePreflight                // a CORS preflight: 204
	refuseHost                    // 403: Host is not an allowed virtual host
	refuseOrigin                  // 403: a WebSocket upgrade from an origin not allowed
	refuseMethod                  // 405
	refuseLength                  // 413: Content-Length over Config.BodyLimit
	refuseType                    // 415: not a JSON content type
)

// decide applies the checks of the endpoint to a request head, in go-ethereum's order:
// virtual host, method, body length, content type; and the origin of WebSocket upgrades.
func (s *Server) decide(h *httpHead) verdict {
	if !s.exp.hostAllowed(h.host) {
		return refuseHost
	}
	switch h.method {
	case http.MethodPost:
		switch {
		case s.cfg.BodyLimit >= 0 && h.contentLength > s.cfg.BodyLimit:
			return refuseLength
		case !acceptedContentType(h.contentType):
			return refuseType
		}
		return serveRPC
	case http.MethodGet:
		switch {
		case !h.upgrade:
			return serveHealth
		case !s.exp.originAllowed(h.origin, h.hasOrigin, h.localPort):
			return refuseOrigin
		}
		return serveWebSocket
	case http.MethodOptions:
		if h.preflight && s.exp.corsEnabled() {
			return servePreflight
		}
	}
	return refuseMethod
}

// ServeHTTP serves the endpoint. POST carries JSON-RPC; GET with "Upgrade: websocket"
// opens a WebSocket connection; any other GET goes to Config.Pages, or is answered 200 with
// an empty body (a health check, as go-ethereum does); a CORS preflight gets 204 when Config.CORSOrigins is set;
// other methods get 405. Requests
// naming a host that is not allowed get 403 (Config.VirtualHosts), and so do WebSocket
// upgrades from an origin that is not (Config.WSOrigins). A POST must have a JSON content
// type (application/json, application/json-rpc or application/jsonrequest, else 415) and a
// body within Config.BodyLimit (else 413). JSON-RPC errors are sent with status 200.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := s.headOf(r)
	v := s.decide(&h)
	if allow := s.exp.corsOrigin(h.origin); allow != "" && v != servePreflight {
		w.Header()["Access-Control-Allow-Origin"] = []string{allow}
		w.Header()["Vary"] = []string{"Origin"}
	}
	switch v {
	case serveRPC:
		s.servePost(w, r)
	case serveHealth:
		if s.cfg.Pages != nil {
			s.cfg.Pages.ServeHTTP(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
	case serveWebSocket:
		s.serveWebSocket(w, r)
	case servePreflight:
		s.exp.preflight(w, r)
	default:
		refuse(w, v, &h, s.cfg.BodyLimit)
	}
}

// headOf reads the head of a net/http request.
func (s *Server) headOf(r *http.Request) httpHead {
	h := httpHead{method: r.Method, host: r.Host, contentLength: r.ContentLength}
	if v := r.Header["Content-Type"]; len(v) > 0 {
		h.contentType = v[0]
	}
	if v, ok := r.Header["Origin"]; ok {
		h.hasOrigin = true
		if len(v) > 0 {
			h.origin = v[0]
		}
	}
	switch r.Method {
	case http.MethodGet:
		if h.upgrade = strings.EqualFold(r.Header.Get("Upgrade"), "websocket"); h.upgrade {
			if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
				_, h.localPort, _ = net.SplitHostPort(addr.String())
			}
		}
	case http.MethodOptions:
		h.preflight = h.hasOrigin && r.Header.Get("Access-Control-Request-Method") != ""
	}
	return h
}

// refuse writes the HTTP error of a refusing verdict, with go-ethereum's texts.
func refuse(w http.ResponseWriter, v verdict, h *httpHead, bodyLimit int64) {
	switch v {
	case refuseHost:
		http.Error(w, "invalid host specified", http.StatusForbidden)
	case refuseOrigin:
		http.Error(w, fmt.Sprintf("websocket origin not allowed: %q", h.origin), http.StatusForbidden)
	case refuseLength:
		http.Error(w, fmt.Sprintf("content length too large (%d>%d)", h.contentLength, bodyLimit), http.StatusRequestEntityTooLarge)
	case refuseType:
		http.Error(w, "invalid content type, only "+contentType+" is supported", http.StatusUnsupportedMediaType)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// servePost reads the body of a JSON-RPC POST that decide let through and answers it.
func (s *Server) servePost(w http.ResponseWriter, r *http.Request) {
	body := s.getBuf()
	defer s.putBuf(body)
	var err error
	body.b, err = s.readBody(r, body.b)
	switch {
	case errors.Is(err, errBodyTooLarge):
		http.Error(w, fmt.Sprintf("content length too large (>%d)", s.cfg.BodyLimit), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		w.Header()["Content-Type"] = s.contentType
		writeHTTP(w, appendErrorResponse(nil, jsonNull, readError(err)), true)
		return
	}
	w.Header()["Content-Type"] = s.contentType
	s.serveJSON(r.Context(), body.b, &httpResponder{w: w, srv: s}, nil)
}

// serveJSON answers the JSON-RPC request (one message or a batch) in body through out,
// on the caller's goroutine. ws is the WebSocket connection the request came on, nil over
// HTTP: it makes subscriptions possible, and an empty message a parse error (an empty
// HTTP body is answered with nothing, as go-ethereum does). body must stay unchanged
// until serveJSON returns.
func (s *Server) serveJSON(ctx context.Context, body []byte, out responder, ws *wsConn) {
	x := s.getExchange()
	x.out, x.conn = out, ws
	err := x.parse(body)
	if err != nil || (len(x.reqs) == 0 && !x.batch) {
		s.putExchange(x)
		if err != nil || ws != nil {
			b := s.getBuf()
			b.b = append(b.b, parseErrorResponse...)
			out.respond(b, false)
		}
		return
	}
	if x.run(ctx) {
		s.putExchange(x)
	}
}

// parseErrorResponse answers a body that is not valid JSON.
var parseErrorResponse = appendErrorResponse(nil, jsonNull, errParse)

// A responder sends the one response of an exchange: an HTTP response on either path, or
// a WebSocket message. respond owns out from the call on. late marks a response sent by
// the exchange's timer while a method may still run on the request's goroutine.
type responder interface {
	respond(out *buffer, late bool)
}

// httpResponder writes responses through net/http.
type httpResponder struct {
	w   http.ResponseWriter
	srv *Server
}

func (r *httpResponder) respond(out *buffer, late bool) {
	writeHTTP(r.w, out.b, late)
	r.srv.putBuf(out)
}

// readBody reads the request body into buf, refusing more than Config.BodyLimit bytes.
func (s *Server) readBody(r *http.Request, buf []byte) ([]byte, error) {
	limit := s.cfg.BodyLimit
	if n := r.ContentLength; n > 0 && int64(cap(buf)) < n+1 {
		buf = make([]byte, 0, n+1) // one byte more, so EOF needs no growth
	}
	upTo := int64(-1)
	if limit >= 0 {
		upTo = limit + 1
	}
	for {
		buf = grow(buf, upTo)
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if limit >= 0 && int64(len(buf)) > limit {
			return buf, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// acceptedContentType reports whether v, a Content-Type value, names a media type
// go-ethereum accepts for JSON-RPC.
func acceptedContentType(v string) bool {
	if v == contentType {
		return true // the common case, without parsing
	}
	mt, _, err := mime.ParseMediaType(v)
	return err == nil && (mt == contentType || mt == "application/json-rpc" || mt == "application/jsonrequest")
}
