const encoder = new TextEncoder();

/** SHA-256 of a text's UTF-8 bytes. */
export const sha256 = async (text: string): Promise<Uint8Array> => new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));

/** SHA-256 of a text as lower-case hex: how keys, fingerprints and bodies are stored and addressed instead of the values themselves. */
export const sha256Hex = async (text: string): Promise<string> => [...(await sha256(text))].map((b) => b.toString(16).padStart(2, '0')).join('');
