/** JUCX's UCS constants (status codes, memory types, thread modes) with JUCX's names and values. */
package org.openucx.jucx.ucs;
