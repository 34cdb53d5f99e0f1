package rpc

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
)

// contentType is the media type of every JSON-RPC response.
const contentType = "application/json"

// errBodyTooLarge reports a request body over Config.BodyLimit.
var errBodyTooLarge = errors.New("request body too large")

// ServeHTTP serves the endpoint. POST carries JSON-RPC; GET with "Upgrade: websocket"
// opens a WebSocket connection; any other GET is answered 200 with an empty body (a health
// check, as go-ethereum does); other methods get 405. A POST must have a JSON content type
// (application/json, application/json-rpc or application/jsonrequest, else 415) and a body
// within Config.BodyLimit (else 413). JSON-RPC errors are sent with status 200.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		s.servePost(w, r)
	case http.MethodGet:
		if isWebSocketUpgrade(r) {
			s.serveWebSocket(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// servePost answers the JSON-RPC request in a POST body.
func (s *Server) servePost(w http.ResponseWriter, r *http.Request) {
	if limit := s.cfg.BodyLimit; limit >= 0 && r.ContentLength > limit {
		http.Error(w, fmt.Sprintf("content length too large (%d>%d)", r.ContentLength, limit), http.StatusRequestEntityTooLarge)
		return
	}
	if !acceptedContentType(r.Header) {
		http.Error(w, "invalid content type, only "+contentType+" is supported", http.StatusUnsupportedMediaType)
		return
	}
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

	x := s.getExchange()
	x.w = w
	if err := x.parse(body.b); err != nil {
		s.putExchange(x)
		writeHTTP(w, appendErrorResponse(nil, jsonNull, &Error{Code: CodeParseError, Message: msgParseError}), false)
		return
	}
	if len(x.reqs) == 0 && !x.batch {
		s.putExchange(x) // empty body: no message, no answer (go-ethereum)
		return
	}
	if x.run(r.Context()) {
		s.putExchange(x)
	}
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

// readError is go-ethereum's error for a body that could not be read.
func readError(err error) *Error {
	msg := "read error"
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		msg = "read timeout"
	}
	return &Error{Code: CodeParseError, Message: msg}
}

// acceptedContentType reports whether the request's media type is one go-ethereum
// accepts.
func acceptedContentType(h http.Header) bool {
	v := h["Content-Type"]
	if len(v) == 0 {
		return false
	}
	if v[0] == contentType {
		return true // the common case, without parsing
	}
	mt, _, err := mime.ParseMediaType(v[0])
	return err == nil && (mt == contentType || mt == "application/json-rpc" || mt == "application/jsonrequest")
}

// isWebSocketUpgrade reports whether r asks for a WebSocket connection.
func isWebSocketUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
