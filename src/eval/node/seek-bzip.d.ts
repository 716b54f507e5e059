// seek-bzip ships no types; only the whole-buffer decoder is used, with an output stream of our own (a size cap).
declare module 'seek-bzip' {
  const Bunzip: { decode(input: Uint8Array, output?: { writeByte(byte: number): void; getBuffer(): Uint8Array }): Uint8Array };
  export default Bunzip;
}
