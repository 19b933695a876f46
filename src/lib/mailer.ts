import { createTransport } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** whether messages really leave (SMTP configured) or only reach the log */
  readonly delivers: boolean;
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * Sends mail through SMTP when `SMTP_URL` is set. Without it, each message (its links included)
 * is written to the log at `warn`, so a deployment without mail can still hand reset and
 * invitation links over by hand (the README says so).
 */
export function createMailer(opts: {
  smtpUrl: string | undefined;
  from: string;
  logger: { warn(obj: unknown, msg?: string): void };
}): Mailer {
  if (!opts.smtpUrl) {
    return {
      delivers: false,
      async send(m) {
        opts.logger.warn({ mail: { to: m.to, subject: m.subject } }, `No SMTP_URL set; this mail was not sent:\n${m.text}`);
      },
      close() {},
    };
  }
  const transport = createTransport(opts.smtpUrl);
  return {
    delivers: true,
    async send(m) {
      await transport.sendMail({ from: opts.from, to: m.to, subject: m.subject, text: m.text });
    },
    close() {
      transport.close();
    },
  };
}
