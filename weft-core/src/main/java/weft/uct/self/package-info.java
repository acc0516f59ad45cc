/**
 * The self transport: an endpoint reaches only its own interface; active messages are delivered in
 * the call, remote memory is this process's memory.
 */
package weft.uct.self;
