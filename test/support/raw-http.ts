import { connect, type Socket } from 'node:net';

/** Opens a plain TCP connection to the daemon at `url`. */
export function openSocket(url: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends raw bytes and returns the raw answer once the server ends the connection (for what a client library refuses to send). */
export async function raw(url: string, request: string): Promise<string> {
  const socket = await openSocket(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
  });
}

/**
 * Collects what the server sends on `socket` until it closes the connection
 * or `limitMs` passes (then the socket is destroyed and `closed` is false).
 */
export function readUntilClosed(socket: Socket, limitMs: number): Promise<{ closed: boolean; data: string; afterMs: number }> {
  const begin = Date.now();
  return new Promise((resolve) => {
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, data, afterMs: Date.now() - begin });
    }, limitMs);
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, data, afterMs: Date.now() - begin });
    });
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits the answers the server wrote on one connection (bodies framed by Content-Length). */
export function splitResponses(data: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = Buffer.from(data);
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const [statusLine, ...lines] = rest.subarray(0, end).toString().split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    responses.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.subarray(end + 4, end + 4 + length).toString() });
    rest = rest.subarray(end + 4 + length);
  }
  return responses;
}

/** Reads from `socket` until `count` complete answers arrived (bounded by `limitMs`). */
export function readResponses(socket: Socket, count: number, limitMs = 5_000): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    let data = '';
    const timer = setTimeout(() => reject(new Error(`only ${splitResponses(data).length} of ${count} answers arrived`)), limitMs);
    socket.on('data', (chunk) => {
      data += chunk;
      const responses = splitResponses(data);
      const last = responses.at(-1);
      if (responses.length >= count && last && Buffer.byteLength(last.body) === Number(last.headers['content-length'] ?? 0)) {
        clearTimeout(timer);
        resolve(responses);
      }
    });
  });
}
