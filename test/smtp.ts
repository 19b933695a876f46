import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that keeps what it receives (for SMTP_URL=smtp://127.0.0.1:port). */
export async function startSmtpReceiver() {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          // quoted-printable soft line breaks undone, so links can be read back whole
          raw: Buffer.concat(chunks).toString('utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '='),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** the first http(s) link of the last mail to `to` */
    linkTo(to: string): string {
      const mail = [...mails].reverse().find((m) => m.to.includes(to));
      const m = mail && /https?:\/\/\S+/.exec(mail.raw);
      if (!m) throw new Error(`no mail with a link to ${to}`);
      return m[0];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
