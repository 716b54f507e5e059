/**
 * Whether a request would carry what it sends in clear. A credential (an API key, an access token, a collector's
 * headers) goes only over https, or to a loopback address: a server on the same machine, as in tests and local
 * development, where nothing crosses a network.
 */

const LOOPBACK_V4 = /^127(?:\.\d{1,3}){3}$/;

/** 127.0.0.0/8, ::1 and localhost. */
export const isLoopbackHost = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || LOOPBACK_V4.test(hostname);

/**
 * True when a request to `url` would leave the machine unencrypted: any scheme but https, to anything but loopback.
 * @example sendsInClear('http://en.wikipedia.org/w/api.php') // true
 * @example sendsInClear('http://127.0.0.1:8000/v1') // false
 */
export const sendsInClear = (url: string | URL): boolean => {
  const u = typeof url === 'string' ? new URL(url) : url;
  return u.protocol !== 'https:' && !isLoopbackHost(u.hostname);
};
