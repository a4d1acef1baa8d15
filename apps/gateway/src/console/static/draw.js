// Drawing of match rectangles: a rectangle is in percent of the image's width (left, right) and height (top, bottom).

function loadImage(src) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('The image could not be shown.'));
    img.src = src;
  });
}

/**
 * A canvas showing the image at `src` scaled to `maxWidth`, with the rectangles outlined and the outside dimmed,
 * so the matched region stands out.
 */
export async function imageWithRects(src, rects, { maxWidth = 260, color = '#2f6fde' } = {}) {
  const img = await loadImage(src);
  const scale = Math.min(1, maxWidth / img.naturalWidth);
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(img.naturalWidth * scale);
  canvas.height = Math.round(img.naturalHeight * scale);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  for (const rect of rects.filter(Boolean)) {
    const x = (rect.left / 100) * canvas.width;
    const y = (rect.top / 100) * canvas.height;
    const w = ((rect.right - rect.left) / 100) * canvas.width;
    const h = ((rect.bottom - rect.top) / 100) * canvas.height;
    ctx.save();
    ctx.fillStyle = 'rgba(15, 20, 30, 0.45)';
    ctx.beginPath();
    ctx.rect(0, 0, canvas.width, canvas.height);
    ctx.rect(x, y, w, h);
    ctx.fill('evenodd');
    ctx.lineWidth = 3;
    ctx.strokeStyle = color;
    ctx.strokeRect(x, y, w, h);
    ctx.restore();
  }
  canvas.dataset.rects = String(rects.filter(Boolean).length);
  return canvas;
}
