/**
 * JUCX's UCP API (contexts, workers, endpoints, listeners, requests, memory and remote keys, active
 * messages) on {@code weft.ucp}; {@code Jucx} holds the glue (status codes, raw addresses as one segment,
 * request tracking). Host memory only: other memory types fail with UNSUPPORTED.
 */
package org.openucx.jucx.ucp;
