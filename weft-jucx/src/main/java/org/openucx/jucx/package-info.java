/**
 * JUCX's top-level API (callbacks, exceptions, parameter bases, buffer utilities) as JUCX 1.15 defines it,
 * implemented in pure Java on {@code weft.ucp}: a program built against JUCX runs by swapping the jar.
 */
package org.openucx.jucx;
