import { PDFDocument } from 'pdf-lib';

/**
 * LinkedIn shows a document post as a swipeable carousel, so "post images as a carousel" means
 * uploading a PDF with one page per picture, each page the picture's pixel size (pdf-lib does the
 * PDF writing and image embedding). PDFs carry JPEG and PNG only: other formats are refused.
 */
export class UnsupportedImageError extends Error {}

export async function imagesToPdf(pictures: { bytes: Uint8Array; mimeType: string }[], title?: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  doc.setProducer('Tidings');
  for (const [i, picture] of pictures.entries()) {
    let image;
    try {
      // A fresh copy: pdf-lib reads the bytes through their ArrayBuffer from offset 0.
      const bytes = new Uint8Array(picture.bytes);
      if (picture.mimeType === 'image/jpeg') image = await doc.embedJpg(bytes);
      else if (picture.mimeType === 'image/png') image = await doc.embedPng(bytes);
      else throw new UnsupportedImageError(`Picture ${i + 1} is ${picture.mimeType}: a LinkedIn carousel takes JPEG or PNG pictures`);
    } catch (e) {
      if (e instanceof UnsupportedImageError) throw e;
      throw new UnsupportedImageError(`Picture ${i + 1} could not be read as ${picture.mimeType}: ${(e as Error).message}`);
    }
    const page = doc.addPage([image.width, image.height]);
    page.drawImage(image, { x: 0, y: 0, width: image.width, height: image.height });
  }
  // Plain objects rather than compressed object streams: older PDF readers take those too.
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
