package node

import "errors"

// closers is the node's one cleanup idiom: a stack of functions that undo what was started,
// pushed as each part starts. close runs them in reverse order, every one of them whatever
// the others return, and joins their errors. A start that fails closes the stack it built; a
// node's Close closes the stack of its running parts. It is not safe for concurrent use.
type closers []func() error

// push adds fn, to run before everything pushed earlier.
func (s *closers) push(fn func() error) { *s = append(*s, fn) }

// pushFunc adds fn, which cannot fail.
func (s *closers) pushFunc(fn func()) {
	s.push(func() error { fn(); return nil })
}

// close runs the stack in reverse and empties it; a second call does nothing.
func (s *closers) close() error {
	var errs []error
	for i := len(*s) - 1; i >= 0; i-- {
		if err := (*s)[i](); err != nil {
			errs = append(errs, err)
		}
	}
	*s = nil
	return errors.Join(errs...)
}

// unwindOnError closes s when *err is set: `defer s.unwindOnError(&err)` at the top of a start
// function undoes a partial start, and joins the cleanup's errors to the start's. Only the
// error may be a named result: closures on the stack must not read a named result that
// `return nil, err` sets to nil before they run.
func (s *closers) unwindOnError(err *error) {
	if *err != nil {
		*err = errors.Join(*err, s.close())
	}
}
